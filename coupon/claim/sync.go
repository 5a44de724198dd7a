package claim

import (
	"context"
	"errors"
	"time"

	"coupond/coupon"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/usercoupon"
	"coupond/lua"
	"coupond/store"
)

// persistNow is sync mode: the seed's transaction in the request (conditional decrement, insert),
// then card bag and expiry. On failure the Redis side is given back (the seed leaked it, D-03).
func (r *Redeemer) persistNow(ctx context.Context, t *coupon.Template, userID int64, requestID string, res lua.RedeemResult, now time.Time) (*Redemption, error) {
	var uc *ent.UserCoupon
	err := store.WithTx(ctx, r.db, func(tx *ent.Tx) error {
		n, err := tx.CouponTemplate.Update().
			Where(coupontemplate.ID(t.ID), coupontemplate.StockGTE(1)).AddStock(-1).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return coupon.Errorf(coupon.CodeOutOfStock, "this coupon is out of stock")
		}
		uc, err = issue.Create(tx, issue.Coupon{
			UserID: userID, TemplateID: t.ID, RedemptionID: res.RedemptionID, ReceiveCount: res.ReceiveCount,
			Source: usercoupon.SourceCLAIM, At: now, End: issue.End(t.Consume.ValidityHours, t.ValidEnd, now),
		}).Save(ctx)
		return err
	}, nil)
	if err != nil {
		// Out of stock in the database (drift): Redis keeps its stock figure; otherwise the
		// claim never happened and Redis gets its stock back too.
		var e *coupon.Error
		giveBack := !errors.As(err, &e)
		k := lua.ReleaseKeys{
			Template: keys.Template(t.ID), Claims: keys.ClaimCounter(t.ID, userID),
			Redemption: keys.Redemption(t.ID, res.RedemptionID),
		}
		if requestID != "" {
			k.Request = keys.Request(t.ID, userID, requestID)
		}
		_, rerr := lua.RedeemRelease(ctx, r.rdb, k, giveBack)
		return nil, errors.Join(err, rerr)
	}
	if err := r.issuer.AfterCommit(ctx, t.ID, []*ent.UserCoupon{uc}, 1); err != nil {
		return nil, err
	}
	return &Redemption{ID: res.RedemptionID, Status: RedemptionIssued, Coupon: &coupon.UserCoupon{UserCoupon: uc}}, nil
}
