package issue

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"coupond/ent"
	"coupond/ent/redemptionfailure"
	"coupond/ent/schematype"
	"coupond/ent/usercoupon"
	"coupond/ent/usercouponarchive"
	"coupond/store"
)

// Ref is a claim or a distribution row: its user and its redemption id.
type Ref struct {
	User         int64
	RedemptionID string
}

// Lookup is what a reader of a template's books asks of the users' shards.
type Lookup struct {
	Refs    []Ref             // the coupon of each (with the header it carries) and the failure of each
	Headers []*ent.StockBatch // the coupons carrying each header, live or archived, among its items
	Holders []int64           // the users whose coupons of the template are counted (live by header, archived)
}

// Found is what the users' shards held of a Lookup.
type Found struct {
	Coupon   map[string]*int64  // redemption id of a Ref → the header its coupon carries (nil: written before reservation batches)
	Failed   map[string]bool    // redemption ids of the Refs MySQL refused
	Written  map[int64]int      // header id → its items with a coupon carrying it
	Held     map[int64][]*int64 // holder → the header each of its live coupons of the template carries
	Archived map[int64]int      // holder → archived coupons of the template
}

// ReadShards reads l for template templateID with one read-only transaction per user shard the
// lookup touches (store.UserShard over shards, as the engine routes user_id; one transaction
// when shards ≤ 1), every query naming its users, 500 a query. Everything about one user is read
// in one read view, so a T2 (which writes one user shard) is seen whole or not at all for that
// user; across users the views differ, which View.Counts makes harmless.
func ReadShards(ctx context.Context, db *ent.Client, templateID int64, shards int, l Lookup) (Found, error) {
	f := Found{Coupon: map[string]*int64{}, Failed: map[string]bool{}, Written: map[int64]int{},
		Held: map[int64][]*int64{}, Archived: map[int64]int{}}
	parts := map[int]*Lookup{}
	part := func(user int64) *Lookup {
		s := store.UserShard(user, shards)
		if parts[s] == nil {
			parts[s] = &Lookup{}
		}
		return parts[s]
	}
	for _, r := range l.Refs {
		p := part(r.User)
		p.Refs = append(p.Refs, r)
	}
	for _, u := range l.Holders {
		p := part(u)
		p.Holders = append(p.Holders, u)
	}
	// Each header is split into one copy per user shard of its items.
	seen := map[int64]bool{}
	for _, h := range l.Headers {
		if seen[h.ID] {
			continue
		}
		seen[h.ID] = true
		for _, items := range store.GroupByUserShard(h.Items, shards, func(it schematype.BatchItem) int64 { return it.User }) {
			if len(items) == 0 {
				continue // a header with no items (shards ≤ 1) has nothing written
			}
			sub := *h
			sub.Items = items
			p := part(items[0].User)
			p.Headers = append(p.Headers, &sub)
		}
	}
	for _, s := range slices.Sorted(maps.Keys(parts)) {
		p := parts[s]
		if err := store.WithTx(ctx, db, func(tx *ent.Tx) error { return f.read(ctx, tx, templateID, p) }, nil); err != nil {
			return Found{}, err
		}
	}
	return f, nil
}

// read adds what tx holds of p (one user shard's part of a Lookup) to f.
func (f Found) read(ctx context.Context, tx *ent.Tx, templateID int64, p *Lookup) error {
	for chunk := range slices.Chunk(p.Refs, 500) {
		users, rids := make([]int64, len(chunk)), make([]string, len(chunk))
		for i, r := range chunk {
			users[i], rids[i] = r.User, r.RedemptionID
		}
		var coupons []struct {
			RedemptionID string `json:"redemption_id"`
			StockBatchID *int64 `json:"stock_batch_id"`
		}
		err := tx.UserCoupon.Query().Where(usercoupon.UserIDIn(users...), usercoupon.TemplateID(templateID),
			usercoupon.RedemptionIDIn(rids...)).Select(usercoupon.FieldRedemptionID, usercoupon.FieldStockBatchID).Scan(ctx, &coupons)
		if err != nil {
			return fmt.Errorf("coupons of claims: %w", err)
		}
		for _, c := range coupons {
			f.Coupon[c.RedemptionID] = c.StockBatchID
		}
		failed, err := tx.RedemptionFailure.Query().Where(redemptionfailure.UserIDIn(users...), redemptionfailure.TemplateID(templateID),
			redemptionfailure.RedemptionIDIn(rids...)).Select(redemptionfailure.FieldRedemptionID).Strings(ctx)
		if err != nil {
			return fmt.Errorf("failed claims: %w", err)
		}
		for _, rid := range failed {
			f.Failed[rid] = true
		}
	}
	for _, h := range p.Headers {
		if err := f.readWritten(ctx, tx, h); err != nil {
			return err
		}
	}
	for chunk := range slices.Chunk(p.Holders, 500) {
		var coupons []struct {
			UserID       int64  `json:"user_id"`
			StockBatchID *int64 `json:"stock_batch_id"`
		}
		err := tx.UserCoupon.Query().Where(usercoupon.UserIDIn(chunk...), usercoupon.TemplateID(templateID)).
			Select(usercoupon.FieldUserID, usercoupon.FieldStockBatchID).Scan(ctx, &coupons)
		if err != nil {
			return fmt.Errorf("coupons of holders: %w", err)
		}
		for _, c := range coupons {
			f.Held[c.UserID] = append(f.Held[c.UserID], c.StockBatchID)
		}
		archived, err := ArchivedSlots(ctx, tx.UserCouponArchive, templateID, chunk)
		if err != nil {
			return err
		}
		for _, a := range archived {
			f.Archived[a.UserID]++
		}
	}
	return nil
}

// readWritten adds to f.Written the items of h (those of one user shard) with a coupon carrying
// h, live or archived, read in tx.
func (f Found) readWritten(ctx context.Context, tx *ent.Tx, h *ent.StockBatch) error {
	w, err := WrittenOf(ctx, tx.Client(), h)
	if err != nil {
		return err
	}
	f.Written[h.ID] += len(w)
	return nil
}

// WrittenOf returns the redemption ids of h's items that have a coupon carrying h (their T2s
// committed), live or archived, each with its coupon's created_at, 500 users a query.
func WrittenOf(ctx context.Context, db *ent.Client, h *ent.StockBatch) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	for chunk := range slices.Chunk(h.Items, 500) {
		users := make([]int64, len(chunk))
		for i, it := range chunk {
			users[i] = it.User
		}
		var live, archived []written
		err := db.UserCoupon.Query().Where(usercoupon.UserIDIn(users...), usercoupon.TemplateID(h.TemplateID),
			usercoupon.StockBatchID(h.ID)).Select(usercoupon.FieldRedemptionID, usercoupon.FieldCreatedAt).Scan(ctx, &live)
		if err != nil {
			return nil, fmt.Errorf("coupons of stock batch %d: %w", h.ID, err)
		}
		err = db.UserCouponArchive.Query().Where(usercouponarchive.UserIDIn(users...), usercouponarchive.TemplateID(h.TemplateID),
			usercouponarchive.StockBatchID(h.ID)).Select(usercouponarchive.FieldRedemptionID, usercouponarchive.FieldCreatedAt).Scan(ctx, &archived)
		if err != nil {
			return nil, fmt.Errorf("archived coupons of stock batch %d: %w", h.ID, err)
		}
		for _, c := range append(live, archived...) {
			out[c.RedemptionID] = c.CreatedAt
		}
	}
	return out, nil
}

// written is a coupon as WrittenOf reads it.
type written struct {
	RedemptionID string    `json:"redemption_id"`
	CreatedAt    time.Time `json:"created_at"`
}
