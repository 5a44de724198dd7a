package claim

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

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
// reason, or PENDING while the persister has not recorded it yet. A claim that repeated an earlier
// one's requestId (after Redis lost the first answer) is ISSUED with the earlier claim's coupon.
// Another user's redemption, or an unknown id, is coupon.ErrNotFound.
func (r *Redeemer) Redemption(ctx context.Context, userID int64, id string) (*Redemption, error) {
	return redemptionOf(ctx, r.db, r.rdb, userID, id)
}

// redemptionOf is Redemption, for the redeemer and the persister.
func redemptionOf(ctx context.Context, db *ent.Client, rdb redis.UniversalClient, userID int64, id string) (*Redemption, error) {
	shard, ok := keys.RedemptionShard(id)
	if !ok {
		return nil, coupon.ErrNotFound
	}
	f, err := db.RedemptionFailure.Query().
		Where(redemptionfailure.UserID(userID), redemptionfailure.RedemptionID(id)).Only(ctx)
	switch {
	case err == nil && f.DuplicateOf != nil:
		red, err := issuedRedemption(ctx, db, userID, *f.DuplicateOf)
		if red != nil {
			red.ID = id
		}
		return red, err
	case err == nil:
		return &Redemption{ID: id, Status: RedemptionFailed, FailureReason: &f.Reason}, nil
	case !ent.IsNotFound(err):
		return nil, fmt.Errorf("load failure: %w", err)
	}
	red, err := issuedRedemption(ctx, db, userID, id)
	if red != nil || !errors.Is(err, coupon.ErrNotFound) {
		return red, err
	}
	owner, err := rdb.Get(ctx, shard.Redemption(id)).Int64()
	if err == nil && owner == userID {
		return &Redemption{ID: id, Status: RedemptionPending}, nil
	}
	return nil, coupon.ErrNotFound
}

// issuedRedemption is the ISSUED redemption of the user's coupon with redemption id id, or
// coupon.ErrNotFound.
func issuedRedemption(ctx context.Context, db *ent.Client, userID int64, id string) (*Redemption, error) {
	uc, err := db.UserCoupon.Query().Where(usercoupon.UserID(userID), usercoupon.RedemptionID(id)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, coupon.ErrNotFound
	case err != nil:
		return nil, fmt.Errorf("load coupon: %w", err)
	}
	return &Redemption{ID: id, Status: RedemptionIssued, Coupon: &coupon.UserCoupon{UserCoupon: uc}}, nil
}

// byRequest is the ISSUED redemption of the coupon the user's claim with requestID made, or nil:
// a retry whose first answer Redis lost (the retry was then refused by stock or limit).
func (r *Redeemer) byRequest(ctx context.Context, userID, templateID int64, requestID string) (*Redemption, error) {
	uc, err := r.db.UserCoupon.Query().Where(usercoupon.UserID(userID), usercoupon.TemplateID(templateID),
		usercoupon.RequestID(requestID)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("load coupon by request: %w", err)
	}
	return &Redemption{ID: uc.RedemptionID, Status: RedemptionIssued, Coupon: &coupon.UserCoupon{UserCoupon: uc}}, nil
}
