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

// MyCoupons returns the page k of the user's coupons, newest first, optionally only those with the
// given status as the user sees it (an UNUSED coupon past its end is EXPIRED).
func (w *Wallet) MyCoupons(ctx context.Context, userID int64, status *usercoupon.Status, k coupon.Keyset) (coupon.Page[*coupon.UserCoupon], error) {
	where := []predicate.UserCoupon{usercoupon.UserID(userID)}
	if status != nil {
		where = append(where, statusAsSeen(*status, w.now()))
	}
	total, err := w.db.UserCoupon.Query().Where(where...).Count(ctx)
	if err != nil {
		return coupon.Page[*coupon.UserCoupon]{}, fmt.Errorf("count coupons: %w", err)
	}
	order := sql.OrderDesc()
	switch {
	case k.Backward && k.Before > 0:
		where = append(where, usercoupon.IDGT(k.Before))
	case !k.Backward && k.After > 0:
		where = append(where, usercoupon.IDLT(k.After))
	}
	if k.Backward {
		order = sql.OrderAsc()
	}
	rows, err := w.db.UserCoupon.Query().Where(where...).
		Order(usercoupon.ByID(order)).Limit(k.Size + 1).All(ctx)
	if err != nil {
		return coupon.Page[*coupon.UserCoupon]{}, fmt.Errorf("list coupons: %w", err)
	}
	return coupon.NewPage(rows, k, total, func(uc *ent.UserCoupon) *coupon.UserCoupon { return &coupon.UserCoupon{UserCoupon: uc} }), nil
}

// Coupon returns the user's coupon with this id, or coupon.ErrNotFound.
func (w *Wallet) Coupon(ctx context.Context, userID, id int64) (*coupon.UserCoupon, error) {
	uc, err := w.db.UserCoupon.Query().Where(usercoupon.UserID(userID), usercoupon.ID(id)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, coupon.ErrNotFound
	case err != nil:
		return nil, fmt.Errorf("load coupon: %w", err)
	}
	return &coupon.UserCoupon{UserCoupon: uc}, nil
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
