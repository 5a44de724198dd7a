package coupon

import (
	"crypto/rand"
	"encoding/base32"
	"time"

	"coupond/ent"
	"coupond/ent/usercoupon"
)

// UserCoupon is a coupon in a user's card bag, as the API shows it.
type UserCoupon struct {
	*ent.UserCoupon
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

var codeEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newCouponCode returns an unguessable 16-character coupon code (80 random bits).
func newCouponCode() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return codeEncoding.EncodeToString(b)
}

// couponEnd is when a coupon claimed at claimed ends: validityHours after the claim when the
// template sets it, else at the template's end.
func couponEnd(validityHours *int, templateEnd, claimed time.Time) time.Time {
	if validityHours != nil {
		return claimed.Add(time.Duration(*validityHours) * time.Hour)
	}
	return templateEnd
}
