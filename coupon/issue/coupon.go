// Package issue is "a coupon now exists": it builds user_coupon rows the same way for every path
// that hands out coupons (flash-sale claims, sync claims, and next distribution), and does the
// work that follows their commit (expiry bucket, realtime stats, expiry scheduling).
package issue

import (
	"strconv"
	"time"

	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/idgen"
)

// Coupon is what a new user_coupon row needs to know.
type Coupon struct {
	UserID       int64
	TemplateID   int64
	RedemptionID string // unique: a replayed claim or distribution row is recognised by it
	ReceiveCount int    // the nth coupon of this template for this user (1-based)
	Source       usercoupon.Source
	At           time.Time // when it was claimed or distributed: valid from then
	End          time.Time // when it stops being valid (see End)
	RequestID    string    // the client's requestId of the claim, "" for none
}

// DistributionRedemptionID is the redemption id of the coupon of row of distribution task taskID:
// derived from (task, row), so a replayed batch inserts nothing twice, and a cache rebuild and the
// reconciliation find the coupons of a batch in flight.
func DistributionRedemptionID(taskID int64, row int) string {
	return "d" + strconv.FormatInt(taskID, 10) + "-" + strconv.Itoa(row)
}

// Create returns the builder of c's row in tx, with a fresh id (its code is derived from the id:
// coupon/code). The row's created_at and updated_at are both c.At, whichever process (and clock)
// inserts it.
func Create(tx *ent.Tx, c Coupon) *ent.UserCouponCreate {
	b := tx.UserCoupon.Create().
		SetID(idgen.Next()).SetUserID(c.UserID).SetTemplateID(c.TemplateID).
		SetRedemptionID(c.RedemptionID).SetReceiveCount(c.ReceiveCount).
		SetSource(c.Source).SetValidStartTime(c.At).SetValidEndTime(c.End).SetCreatedAt(c.At).SetUpdatedAt(c.At)
	if c.RequestID != "" {
		b.SetRequestID(c.RequestID)
	}
	return b
}

// End is when a coupon handed out at at ends: validityHours after it when the template sets a
// relative validity, else at the template's end.
func End(validityHours *int, templateEnd, at time.Time) time.Time {
	if validityHours != nil {
		return at.Add(time.Duration(*validityHours) * time.Hour)
	}
	return templateEnd
}
