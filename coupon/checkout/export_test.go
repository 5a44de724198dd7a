package checkout

import (
	"context"
	"time"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/couponsettlement"
	"coupond/ent/usercoupon"
)

// SetClock makes s read the time from now (tests of expiries).
func SetClock(s *Service, now func() time.Time) { s.now = now }

// SettlementOf is the plain read of a settlement by (user, order, coupon).
func (s *Service) SettlementOf(ctx context.Context, userID, orderID, couponID int64) (*ent.CouponSettlement, error) {
	return s.settlementOf(ctx, userID, orderID, couponID)
}

// CouponForOrder is a lock's plain read of the coupon the actor names.
func (s *Service) CouponForOrder(ctx context.Context, actor coupon.Actor, couponID, orderID int64) (*ent.UserCoupon, error) {
	where, args, err := named(actor, couponID)
	if err != nil {
		return nil, err
	}
	uc, _, err := s.couponForOrder(ctx, where, args, orderID)
	return uc, err
}

// UnscannedColumns are the columns of user_coupon and coupon_settlement the plain reads do not scan.
func UnscannedColumns() []string {
	var out []string
	for _, c := range couponsettlement.Columns {
		if settlementDest(&ent.CouponSettlement{}, c) == nil {
			out = append(out, "coupon_settlement."+c)
		}
	}
	for _, c := range usercoupon.Columns {
		if couponDest(&ent.UserCoupon{}, c) == nil {
			out = append(out, "user_coupon."+c)
		}
	}
	return out
}
