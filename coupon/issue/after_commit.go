package issue

import (
	"context"
	"fmt"
	"time"

	"coupond/coupon/expiry"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/usercoupon"

	"github.com/redis/go-redis/v9"
)

// Issuer does the Redis side of coupons whose rows are committed. Every step is idempotent, so a
// caller that crashed after its commit replays AfterCommit for the same coupons safely.
type Issuer struct {
	rdb     redis.UniversalClient
	buckets *expiry.BucketScheduler
	now     func() time.Time
}

// NewIssuer returns an Issuer writing to rdb and scheduling expiry through s.
func NewIssuer(rdb redis.UniversalClient, s expiry.Scheduler) *Issuer {
	return &Issuer{rdb: rdb, buckets: expiry.NewBucketScheduler(s), now: time.Now}
}

// AfterCommit puts the committed coupons of one template into their users' card bags (keyed by
// the coupon's user, never a request's, D-01; only those still UNUSED as read, so a replayed batch
// does not bring back a coupon locked or spent since) and their expiry buckets in one pipeline, adds fresh
// (how many of them are new, not replays) to today's "issued" counter, and then schedules each
// bucket's expiry task.
func (is *Issuer) AfterCommit(ctx context.Context, templateID int64, coupons []*ent.UserCoupon, fresh int) error {
	if len(coupons) == 0 {
		return nil
	}
	now := is.now()
	pipe := is.rdb.Pipeline()
	for _, uc := range coupons {
		if uc.Status == usercoupon.StatusUNUSED { // a replay may read a coupon locked or used since
			pipe.ZAdd(ctx, keys.CardBag(uc.UserID), redis.Z{Score: float64(uc.CreatedAt.UnixMilli()), Member: keys.BagMember(templateID, uc.ID)})
		}
	}
	minutes := expiry.AddToBuckets(ctx, pipe, templateID, coupons, now)
	if fresh > 0 {
		pipe.HIncrBy(ctx, keys.DailyStats(templateID, now.UTC().Format(time.DateOnly)), "issued", int64(fresh))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("card bags and expiry buckets: %w", err)
	}
	for _, m := range minutes {
		if err := is.buckets.Schedule(ctx, templateID, m); err != nil {
			return fmt.Errorf("schedule expiry: %w", err)
		}
	}
	return nil
}
