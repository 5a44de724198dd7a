package issue

import (
	"context"
	"fmt"
	"time"

	"coupond/coupon/expiry"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/lua"

	"github.com/redis/go-redis/v9"
)

// Issuer does the after-commit work of coupons whose rows are committed. Every step is idempotent, so a
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

// AfterCommit puts the committed coupons of one template into their expiry buckets in one
// pipeline, counts the last fresh of coupons (inserted by this commit, not replays) in the issued
// counters of their created_at's stats day (CountIssued), and then schedules each bucket's expiry
// task.
func (is *Issuer) AfterCommit(ctx context.Context, templateID int64, coupons []*ent.UserCoupon, fresh int) error {
	if len(coupons) == 0 {
		return nil
	}
	now := is.now()
	pipe := is.rdb.Pipeline()
	minutes := expiry.AddToBuckets(ctx, pipe, templateID, coupons, now)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("expiry buckets: %w", err)
	}
	if err := CountIssued(ctx, is.rdb, templateID, coupons[len(coupons)-fresh:]); err != nil {
		return err
	}
	for _, m := range minutes {
		if err := is.buckets.Schedule(ctx, templateID, m); err != nil {
			return fmt.Errorf("schedule expiry: %w", err)
		}
	}
	return nil
}

// CountIssued adds coupons, all inserted by one commit, to the issued counters (by origin) of
// their created_at's stats day, once: the event is named by the smallest coupon id of each day's
// group (a fresh snowflake of that commit), so an after-commit retried after Redis ran it but the
// answer was lost adds nothing. A crash between the commit and this count loses it (a replay
// inserts nothing and so counts nothing); the day's seal, or a rebuild, recomputes it from MySQL.
func CountIssued(ctx context.Context, rdb redis.UniversalClient, templateID int64, coupons []*ent.UserCoupon) error {
	type group struct {
		minID          int64
		claim, distrib int64
	}
	days := map[string]*group{}
	for _, uc := range coupons {
		d := keys.StatsDay(uc.CreatedAt)
		g := days[d]
		if g == nil {
			g = &group{minID: uc.ID}
			days[d] = g
		}
		g.minID = min(g.minID, uc.ID)
		if uc.Source == usercoupon.SourceDISTRIBUTION {
			g.distrib++
		} else {
			g.claim++
		}
	}
	for d, g := range days {
		if err := rdb.SAdd(ctx, keys.StatsTouched(d), templateID).Err(); err != nil {
			return fmt.Errorf("stats: touch %s: %w", d, err)
		}
		event := fmt.Sprintf("issued:%d:%s", g.minID, d)
		_, err := lua.CountOnce(ctx, rdb, keys.DailyStats(templateID, d), keys.Counted(templateID, event), keys.CountedTTL,
			lua.Increment{Field: keys.StatIssuedClaim, By: g.claim}, lua.Increment{Field: keys.StatIssuedDistribution, By: g.distrib})
		if err != nil {
			return fmt.Errorf("stats: count issued: %w", err)
		}
	}
	return nil
}
