package coupon

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"coupond/ent"
	"coupond/ent/predicate"
	"coupond/ent/redemptionfailure"
	"coupond/ent/usercoupon"

	"entgo.io/ent/dialect/sql"
)

// Redemption tells the user where their claim stands: ISSUED with the coupon, FAILED with the
// reason, or PENDING while the persister has not recorded it yet. Another user's redemption,
// or an unknown id, is ErrNotFound.
func (r *Redeemer) Redemption(ctx context.Context, userID int64, id string) (*Redemption, error) {
	tplPart, _, ok := strings.Cut(id, "-")
	templateID, err := strconv.ParseInt(tplPart, 10, 64)
	if !ok || err != nil {
		return nil, ErrNotFound
	}
	uc, err := r.db.UserCoupon.Query().
		Where(usercoupon.UserID(userID), usercoupon.RedemptionID(id)).Only(ctx)
	switch {
	case err == nil:
		return &Redemption{ID: id, Status: RedemptionIssued, Coupon: &UserCoupon{uc}}, nil
	case !ent.IsNotFound(err):
		return nil, fmt.Errorf("load coupon: %w", err)
	}
	f, err := r.db.RedemptionFailure.Query().
		Where(redemptionfailure.UserID(userID), redemptionfailure.RedemptionID(id)).Only(ctx)
	switch {
	case err == nil:
		return &Redemption{ID: id, Status: RedemptionFailed, FailureReason: &f.Reason}, nil
	case !ent.IsNotFound(err):
		return nil, fmt.Errorf("load failure: %w", err)
	}
	owner, err := r.rdb.Get(ctx, RedemptionKey(templateID, id)).Int64()
	if err == nil && owner == userID {
		return &Redemption{ID: id, Status: RedemptionPending}, nil
	}
	return nil, ErrNotFound
}

// CouponPage is one page of a user's coupons, newest first.
type CouponPage struct {
	Coupons []*UserCoupon
	HasNext bool
	Total   int
}

// MyCoupons lists the user's coupons with id < afterID (0: from the newest), optionally only
// those with the given status as the user sees it (an UNUSED coupon past its end is EXPIRED).
func (r *Redeemer) MyCoupons(ctx context.Context, userID int64, status *usercoupon.Status, first int, afterID int64) (*CouponPage, error) {
	where := []predicate.UserCoupon{usercoupon.UserID(userID)}
	if status != nil {
		where = append(where, statusAsSeen(*status, r.now()))
	}
	total, err := r.db.UserCoupon.Query().Where(where...).Count(ctx)
	if err != nil {
		return nil, fmt.Errorf("count coupons: %w", err)
	}
	if afterID > 0 {
		where = append(where, usercoupon.IDLT(afterID))
	}
	rows, err := r.db.UserCoupon.Query().Where(where...).
		Order(usercoupon.ByID(sql.OrderDesc())).Limit(first + 1).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("list coupons: %w", err)
	}
	page := &CouponPage{Total: total, HasNext: len(rows) > first}
	if page.HasNext {
		rows = rows[:first]
	}
	for _, uc := range rows {
		page.Coupons = append(page.Coupons, &UserCoupon{uc})
	}
	return page, nil
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
