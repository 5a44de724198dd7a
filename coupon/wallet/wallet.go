// Package wallet is a user's side of coupons: the coupons they hold.
package wallet

import (
	"context"
	"fmt"
	"time"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/predicate"
	"coupond/ent/usercoupon"

	"entgo.io/ent/dialect/sql"
)

// Wallet reads a user's coupons.
type Wallet struct {
	db  *ent.Client
	now func() time.Time
}

// New returns a Wallet over the database.
func New(db *ent.Client) *Wallet { return &Wallet{db: db, now: time.Now} }

// MyCoupons lists the user's coupons with id < afterID (0: from the newest), optionally only
// those with the given status as the user sees it (an UNUSED coupon past its end is EXPIRED).
func (w *Wallet) MyCoupons(ctx context.Context, userID int64, status *usercoupon.Status, first int, afterID int64) (coupon.Page[*coupon.UserCoupon], error) {
	where := []predicate.UserCoupon{usercoupon.UserID(userID)}
	if status != nil {
		where = append(where, statusAsSeen(*status, w.now()))
	}
	total, err := w.db.UserCoupon.Query().Where(where...).Count(ctx)
	if err != nil {
		return coupon.Page[*coupon.UserCoupon]{}, fmt.Errorf("count coupons: %w", err)
	}
	if afterID > 0 {
		where = append(where, usercoupon.IDLT(afterID))
	}
	rows, err := w.db.UserCoupon.Query().Where(where...).
		Order(usercoupon.ByID(sql.OrderDesc())).Limit(first + 1).All(ctx)
	if err != nil {
		return coupon.Page[*coupon.UserCoupon]{}, fmt.Errorf("list coupons: %w", err)
	}
	return coupon.NewPage(rows, first, total, func(uc *ent.UserCoupon) *coupon.UserCoupon { return &coupon.UserCoupon{UserCoupon: uc} }), nil
}

// statusAsSeen selects coupons whose status as the user sees it at now is s.
func statusAsSeen(s usercoupon.Status, now time.Time) predicate.UserCoupon {
	switch s {
	case usercoupon.StatusUNUSED:
		return usercoupon.And(usercoupon.StatusEQ(s), usercoupon.ValidEndTimeGT(now))
	case usercoupon.StatusEXPIRED:
		return usercoupon.Or(usercoupon.StatusEQ(s),
			usercoupon.And(usercoupon.StatusEQ(usercoupon.StatusUNUSED), usercoupon.ValidEndTimeLTE(now)))
	}
	return usercoupon.StatusEQ(s)
}
