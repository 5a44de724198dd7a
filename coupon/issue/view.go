package issue

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/stockbatch"
	"coupond/store"

	"entgo.io/ent/dialect/sql"
)

// View is one read of a template's books on the template's shard: its row and its OPEN stock
// batch headers, in one read view (T1 and T3 change both in one transaction, so total = stock +
// issued + Σ reserved of the OPEN headers holds in it). Coupons read afterwards on the users'
// shards (ReadShards) are counted against it by the header they carry (Counts), so a reader needs
// no read view spanning both keyspaces: whatever T1, T2 or T3 commits between the reads, each
// unit is counted once.
type View struct {
	Row  *ent.CouponTemplate
	Open []*ent.StockBatch
	// open are the ids of Open; newer the headers Resolve found neither OPEN nor settled in the view;
	// early the newer headers Include counts all the same.
	open, newer, early map[int64]bool
}

// ReadView reads template id's view: its shop by id (an autocommit read, which a sharded engine
// may send to every template shard), then, in one transaction on the template's shard, the row
// and its OPEN headers. With share the row is read LOCK IN SHARE MODE (which MySQL 8 and MariaDB
// both accept): the read waits for a transaction holding the row FOR UPDATE (T1, T3, an
// administrator's change) to commit, and keeps them waiting for the two reads only. An unknown id
// is an ent not-found error.
func ReadView(ctx context.Context, db *ent.Client, id int64, share bool) (*View, error) {
	shop, err := db.CouponTemplate.Query().Where(coupontemplate.ID(id)).Select(coupontemplate.FieldShopNumber).Int(ctx)
	if err != nil {
		return nil, fmt.Errorf("template %d: %w", id, err)
	}
	v := &View{open: map[int64]bool{}, newer: map[int64]bool{}, early: map[int64]bool{}}
	err = store.WithTx(ctx, db, func(tx *ent.Tx) error {
		q := tx.CouponTemplate.Query().Where(coupontemplate.ID(id), coupontemplate.ShopNumber(int64(shop)))
		if share {
			q = q.ForShare(sql.WithLockClause("LOCK IN SHARE MODE"))
		}
		var err error
		if v.Row, err = q.Only(ctx); err != nil {
			return fmt.Errorf("template %d: %w", id, err)
		}
		v.Open, err = tx.StockBatch.Query().Where(stockbatch.ShopNumber(int64(shop)), stockbatch.TemplateID(id),
			stockbatch.StateEQ(stockbatch.StateOPEN)).All(ctx)
		if err != nil {
			return fmt.Errorf("open stock batches of %d: %w", id, err)
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	for _, h := range v.Open {
		v.open[h.ID] = true
	}
	return v, nil
}

// Resolve reads, on the template's shard, which headers carried by the coupons in f are newer
// than the view: neither OPEN in it nor settled by then (seq above the row's batch_seq). Their
// T1 committed after the view, so their units are still in the view's stock. Seqs never change,
// so the read needs no read view shared with anything.
func (v *View) Resolve(ctx context.Context, db *ent.Client, f Found) error {
	ask := map[int64]bool{}
	note := func(h *int64) {
		if h != nil && !v.open[*h] {
			ask[*h] = true
		}
	}
	for _, h := range f.Coupon {
		note(h)
	}
	for _, hs := range f.Held {
		for _, h := range hs {
			note(h)
		}
	}
	if len(ask) == 0 {
		return nil
	}
	for chunk := range slices.Chunk(slices.Sorted(maps.Keys(ask)), 500) {
		newer, err := db.StockBatch.Query().Where(stockbatch.ShopNumber(v.Row.ShopNumber), stockbatch.TemplateID(v.Row.ID),
			stockbatch.IDIn(chunk...), stockbatch.SeqGT(v.Row.BatchSeq)).IDs(ctx)
		if err != nil {
			return fmt.Errorf("stock batches of %d: %w", v.Row.ID, err)
		}
		for _, h := range newer {
			v.newer[h] = true
		}
	}
	return nil
}

// Counts reports whether the view counts a coupon carrying header h (nil: written before
// reservation batches) as issued: h is OPEN in the view or settled by then, or Include added it.
// A coupon of another newer header (see Resolve, which must have read f first) counts as not
// written yet.
func (v *View) Counts(h *int64) bool { return h == nil || !v.newer[*h] || v.early[*h] }

// SettledSince reads, on the template's shard, the headers newer than the view (seq above the
// row's batch_seq) that are SETTLED now: batches whose T1 and T3 both committed after the view.
func (v *View) SettledSince(ctx context.Context, db *ent.Client) ([]*ent.StockBatch, error) {
	hs, err := db.StockBatch.Query().Where(stockbatch.ShopNumber(v.Row.ShopNumber), stockbatch.TemplateID(v.Row.ID),
		stockbatch.SeqGT(v.Row.BatchSeq), stockbatch.StateEQ(stockbatch.StateSETTLED)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("stock batches of %d settled since the view: %w", v.Row.ID, err)
	}
	return hs, nil
}

// Include counts the coupons of h, a header newer than the view, as issued in it (Counts): the
// caller knows the units of h were taken from the stock it compares with before that stock was
// read, and that h's coupons are not counted as pending there.
func (v *View) Include(h *ent.StockBatch) { v.early[h.ID] = true }
