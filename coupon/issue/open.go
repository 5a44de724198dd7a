package issue

import (
	"context"
	"fmt"
	"slices"

	"coupond/ent"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/ent/usercouponarchive"
)

// OpenBatch is an OPEN header with the redemption ids of its items whose coupons its T2s wrote so
// far (read in the caller's transaction).
type OpenBatch struct {
	Header  *ent.StockBatch
	Written map[string]bool
}

// Unwritten is the header's units no coupon holds yet: reserved less the coupons written.
func (o OpenBatch) Unwritten() int { return o.Header.Reserved - len(o.Written) }

// OpenBatches returns the template's OPEN headers with their written coupons, read in tx (the
// headers by the template's key; the coupons by their users', 500 a query).
func OpenBatches(ctx context.Context, tx *ent.Tx, templateID int64) ([]OpenBatch, error) {
	hs, err := tx.StockBatch.Query().Where(stockbatch.TemplateID(templateID), stockbatch.StateEQ(stockbatch.StateOPEN)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("open stock batches: %w", err)
	}
	out := make([]OpenBatch, len(hs))
	for i, h := range hs {
		w, err := WrittenOf(ctx, tx.Client(), h)
		if err != nil {
			return nil, err
		}
		out[i] = OpenBatch{Header: h, Written: w}
	}
	return out, nil
}

// WrittenOf returns the redemption ids of h's items that have a coupon carrying h (their T2s
// committed), live or archived, 500 users a query.
func WrittenOf(ctx context.Context, db *ent.Client, h *ent.StockBatch) (map[string]bool, error) {
	out := map[string]bool{}
	for chunk := range slices.Chunk(h.Items, 500) {
		users := make([]int64, len(chunk))
		for i, it := range chunk {
			users[i] = it.User
		}
		rids, err := db.UserCoupon.Query().Where(usercoupon.UserIDIn(users...), usercoupon.TemplateID(h.TemplateID),
			usercoupon.StockBatchID(h.ID)).Select(usercoupon.FieldRedemptionID).Strings(ctx)
		if err != nil {
			return nil, fmt.Errorf("coupons of stock batch %d: %w", h.ID, err)
		}
		archived, err := db.UserCouponArchive.Query().Where(usercouponarchive.UserIDIn(users...), usercouponarchive.TemplateID(h.TemplateID),
			usercouponarchive.StockBatchID(h.ID)).Select(usercouponarchive.FieldRedemptionID).Strings(ctx)
		if err != nil {
			return nil, fmt.Errorf("archived coupons of stock batch %d: %w", h.ID, err)
		}
		for _, rid := range append(rids, archived...) {
			out[rid] = true
		}
	}
	return out, nil
}
