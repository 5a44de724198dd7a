package expiry

import (
	"context"
	"time"

	"coupond/coupon/keys"
	"coupond/ent"

	"github.com/redis/go-redis/v9"
)

// BucketMinute is the expiry bucket of a coupon ending at end: the start of end's minute, in UTC.
func BucketMinute(end time.Time) time.Time { return end.UTC().Truncate(time.Minute) }

// AddToBuckets queues on pipe the commands that put the coupons (of one template) into their
// expiry buckets (BucketMinute of each one's end) and make each bucket key expire 7 days after its
// minute (or after now, for a bucket already past): one SADD of all its coupons and one EXPIREAT
// per bucket, however many coupons share it. It returns the buckets' minutes. It does not schedule
// the buckets' tasks: the caller asks its BucketScheduler for each minute once the pipeline has
// run. Call it only after the coupons' rows are committed, so a bucket never names a coupon the
// database does not have.
func AddToBuckets(ctx context.Context, pipe redis.Pipeliner, templateID int64, coupons []*ent.UserCoupon, now time.Time) []time.Time {
	members := map[time.Time][]any{}
	var minutes []time.Time
	for _, uc := range coupons {
		minute := BucketMinute(uc.ValidEndTime)
		if _, seen := members[minute]; !seen {
			minutes = append(minutes, minute)
		}
		members[minute] = append(members[minute], keys.BucketMember(uc.UserID, uc.ID))
	}
	for _, minute := range minutes {
		key := keys.ExpiryBucket(templateID, minute.Unix())
		pipe.SAdd(ctx, key, members[minute]...)
		pipe.ExpireAt(ctx, key, latest(minute, now).Add(expiryBucketTTL))
	}
	return minutes
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
