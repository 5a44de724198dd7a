package issue

import (
	"context"
	"errors"
	"fmt"

	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/schematype"
	"coupond/ent/stockbatch"
	"coupond/store"
)

// Reservation is a committed T1: the header and the template as T1 locked it (its stock after
// the units were taken).
type Reservation struct {
	Header   *ent.StockBatch
	Template *ent.CouponTemplate
}

// ReserveSpec is what T1 reserves for.
type ReserveSpec struct {
	TemplateID int64
	ShopNumber int64 // the template's: every statement on the template's shard names it
	Source     stockbatch.Source
	Items      []Item
	TaskID     *int64 // distribution: the task and its resume position before the batch
	TaskStart  *int
	// Prepare, when set, runs first in T1, before the template row is locked (distribution locks
	// its task row and moves its resume position here); an error rolls T1 back and is returned.
	Prepare func(ctx context.Context, tx *ent.Tx) error
}

// ErrBusy is a T1 put off: the template's stock is below the batch while other batches of the
// template are OPEN (their units may come back, or are the batch's own replay in flight), so the
// shortfall is not drift yet. Nothing was written; retry once they settle.
var ErrBusy = errors.New("issue: the template's stock is short while other batches of it are open")

// Reserve is T1, on the template's shard: it locks the template row, takes k = min(len(items),
// stock) units, and inserts an OPEN header for them (seq = the template's next batch_seq) listing
// the items. When k < len(items) and another header of the template is OPEN it writes nothing and
// returns ErrBusy.
func Reserve(ctx context.Context, db *ent.Client, spec ReserveSpec) (*Reservation, error) {
	var r *Reservation
	err := store.WithTx(ctx, db, func(tx *ent.Tx) error {
		if spec.Prepare != nil {
			if err := spec.Prepare(ctx, tx); err != nil {
				return err
			}
		}
		tpl, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(spec.TemplateID), coupontemplate.ShopNumber(spec.ShopNumber)).ForUpdate().Only(ctx)
		if err != nil {
			return fmt.Errorf("lock template %d: %w", spec.TemplateID, err)
		}
		k := min(len(spec.Items), tpl.Stock)
		if k < len(spec.Items) {
			open, err := tx.StockBatch.Query().Where(stockbatch.ShopNumber(tpl.ShopNumber), stockbatch.TemplateID(tpl.ID), stockbatch.StateEQ(stockbatch.StateOPEN)).Exist(ctx)
			if err != nil {
				return fmt.Errorf("open batches: %w", err)
			}
			if open {
				busyTotal.Inc()
				return ErrBusy
			}
		}
		seq := tpl.BatchSeq + 1
		n, err := tx.CouponTemplate.Update().Where(coupontemplate.ID(tpl.ID), coupontemplate.ShopNumber(tpl.ShopNumber)).
			AddStock(-k).SetBatchSeq(seq).Save(ctx)
		if err != nil || n != 1 {
			return fmt.Errorf("take stock (%d rows): %w", n, err)
		}
		tpl.Stock, tpl.BatchSeq = tpl.Stock-k, seq
		list := make([]schematype.BatchItem, len(spec.Items))
		for i, it := range spec.Items {
			list[i] = schematype.BatchItem{User: it.UserID, Rid: it.RedemptionID, Epoch: it.Epoch}
		}
		h, err := tx.StockBatch.Create().SetShopNumber(tpl.ShopNumber).SetTemplateID(tpl.ID).SetSeq(seq).
			SetSource(spec.Source).SetNillableTaskID(spec.TaskID).SetNillableTaskStart(spec.TaskStart).
			SetReserved(k).SetItems(list).Save(ctx)
		if err != nil {
			return fmt.Errorf("insert stock batch: %w", err)
		}
		r = &Reservation{Header: h, Template: tpl}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Resume returns the reservation of an OPEN header (a distribution batch whose T1 committed before
// a crash), with its template, for its T2s and T3 to be done again.
func Resume(ctx context.Context, db *ent.Client, h *ent.StockBatch) (*Reservation, error) {
	tpl, err := db.CouponTemplate.Query().Where(coupontemplate.ID(h.TemplateID), coupontemplate.ShopNumber(h.ShopNumber)).Only(ctx)
	if err != nil {
		return nil, fmt.Errorf("template %d: %w", h.TemplateID, err)
	}
	return &Reservation{Header: h, Template: tpl}, nil
}
