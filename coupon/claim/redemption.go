package claim

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/redemptionfailure"
	"coupond/ent/usercoupon"
)

// RedemptionStatus is where a claim stands.
type RedemptionStatus string

// Redemption statuses.
const (
	RedemptionPending RedemptionStatus = "PENDING"
	RedemptionIssued  RedemptionStatus = "ISSUED"
	RedemptionFailed  RedemptionStatus = "FAILED"
)

// Redemption is one accepted claim.
type Redemption struct {
	ID            string
	Status        RedemptionStatus
	Coupon        *coupon.UserCoupon
	FailureReason *string
}

// Redemption tells the user where their claim stands: ISSUED with the coupon, FAILED with the
// reason, or PENDING while the persister has not recorded it yet. Another user's redemption,
// or an unknown id, is coupon.ErrNotFound.
func (r *Redeemer) Redemption(ctx context.Context, userID int64, id string) (*Redemption, error) {
	tplPart, _, ok := strings.Cut(id, "-")
	templateID, err := strconv.ParseInt(tplPart, 10, 64)
	if !ok || err != nil {
		return nil, coupon.ErrNotFound
	}
	uc, err := r.db.UserCoupon.Query().
		Where(usercoupon.UserID(userID), usercoupon.RedemptionID(id)).Only(ctx)
	switch {
	case err == nil:
		return &Redemption{ID: id, Status: RedemptionIssued, Coupon: &coupon.UserCoupon{UserCoupon: uc}}, nil
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
	owner, err := r.rdb.Get(ctx, keys.Redemption(templateID, id)).Int64()
	if err == nil && owner == userID {
		return &Redemption{ID: id, Status: RedemptionPending}, nil
	}
	return nil, coupon.ErrNotFound
}
