package expiry

import (
	"context"
	"time"

	"coupond/coupon/keys"

	"github.com/redis/go-redis/v9"
)

// BucketMinute is the expiry bucket of a coupon ending at end: the start of end's minute, in UTC.
func BucketMinute(end time.Time) time.Time { return end.UTC().Truncate(time.Minute) }

// AddToBucket queues on pipe the commands that put a coupon ending at end into its expiry bucket
// (BucketMinute(end)) and make the bucket key expire 7 days after its minute (or after now, for a
// bucket already past). It does not schedule the bucket's task: the caller asks its
// BucketScheduler for the bucket once the pipeline has run. Call it only after the coupon's row is
// committed, so the bucket never names a coupon the database does not have.
func AddToBucket(ctx context.Context, pipe redis.Pipeliner, templateID, userID, couponID int64, end, now time.Time) {
	minute := BucketMinute(end)
	key := keys.ExpiryBucket(templateID, minute.Unix())
	pipe.SAdd(ctx, key, keys.BucketMember(userID, couponID))
	pipe.ExpireAt(ctx, key, latest(minute, now).Add(expiryBucketTTL))
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
