package coupon

import (
	"time"

	"coupond/ent"
	"coupond/ent/usercoupon"
)

// UserCoupon is a coupon in a user's card bag, as the API shows it.
type UserCoupon struct {
	*ent.UserCoupon
	// ArchivedAt is when the coupon was moved to user_coupon_archive; nil while in user_coupon.
	ArchivedAt *time.Time
}

// Status is the coupon's status now: an UNUSED coupon past its end shows EXPIRED even before the
// expiry job has run.
func (c UserCoupon) Status() usercoupon.Status {
	if c.UserCoupon.Status == usercoupon.StatusUNUSED && !time.Now().Before(c.ValidEndTime) {
		return usercoupon.StatusEXPIRED
	}
	return c.UserCoupon.Status
}

// ReceivedAt is when the coupon was claimed or distributed.
func (c UserCoupon) ReceivedAt() time.Time { return c.CreatedAt }
