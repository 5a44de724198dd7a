package issue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"coupond/coupon/ledger"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/stockbatch"
	"coupond/store"
)

// ErrSettled is a T3 that found its header settled already (by the sweep, or an earlier run of
// the batch): it wrote nothing.
var ErrSettled = errors.New("issue: the stock batch is settled already")

// Settlement is what T3 records: the coupons the batch's T2s wrote, and the path's own writes on
// the template's shard.
type Settlement struct {
	// Carried is the created_at of each coupon carrying the header (the batch's T2s wrote them):
	// their number is the units used, and they are added to the template's issued ledger.
	Carried []time.Time
	// First, when set, runs first in T3, before the template row is locked (distribution locks
	// its task row here, in its T1's order).
	First func(ctx context.Context, tx *ent.Tx) error
	// Finish, when set, runs in T3 after the header is settled, with the template row as T3 locked
	// it (claims: the drift audit; distribution: the task's counters, its
	// failure rows and the drift audit).
	Finish func(ctx context.Context, tx *ent.Tx, tpl *ent.CouponTemplate) error
}

// Settle is T3, on the template's shard: after s.First it locks the template row and the header,
// and, when the header is still OPEN, gives back reserved − used units (used: len(s.Carried)), adds
// used to the template's issued coupons, marks the header SETTLED with used, adds s.Carried to the
// template's issued ledger (coupon/ledger: so each coupon is counted there exactly once, by the T3
// that settles its header), and runs s.Finish. A header settled
// already makes it write nothing and return ErrSettled, so a replayed T3 does nothing.
func Settle(ctx context.Context, db *ent.Client, h *ent.StockBatch, s Settlement) error {
	return store.WithTx(ctx, db, func(tx *ent.Tx) error {
		if s.First != nil {
			if err := s.First(ctx, tx); err != nil {
				return err
			}
		}
		tpl, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(h.TemplateID), coupontemplate.ShopNumber(h.ShopNumber)).ForUpdate().Only(ctx)
		if err != nil {
			return fmt.Errorf("lock template %d: %w", h.TemplateID, err)
		}
		cur, err := tx.StockBatch.Query().Where(stockbatch.ID(h.ID), stockbatch.ShopNumber(h.ShopNumber)).
			Select(stockbatch.FieldID, stockbatch.FieldShopNumber, stockbatch.FieldState, stockbatch.FieldReserved).ForUpdate().Only(ctx) // not the items
		if err != nil {
			return fmt.Errorf("lock stock batch %d: %w", h.ID, err)
		}
		if cur.State != stockbatch.StateOPEN {
			return ErrSettled
		}
		used := len(s.Carried)
		if used > cur.Reserved {
			return fmt.Errorf("stock batch %d: %d coupons written against %d units", h.ID, used, cur.Reserved)
		}
		if err := tx.CouponTemplate.Update().Where(coupontemplate.ID(tpl.ID), coupontemplate.ShopNumber(tpl.ShopNumber)).
			AddStock(cur.Reserved - used).AddIssued(used).Exec(ctx); err != nil {
			return fmt.Errorf("give back units: %w", err)
		}
		if err := tx.StockBatch.Update().Where(stockbatch.ID(cur.ID), stockbatch.ShopNumber(cur.ShopNumber)).
			SetUsed(used).SetState(stockbatch.StateSETTLED).SetSettledAt(time.Now()).Exec(ctx); err != nil {
			return fmt.Errorf("settle stock batch: %w", err)
		}
		if err := ledger.AddIssued(ctx, tx, tpl.ShopNumber, tpl.ID, h.Source.String(), s.Carried); err != nil {
			return err
		}
		if s.Finish != nil {
			return s.Finish(ctx, tx, tpl)
		}
		return nil
	}, nil)
}
