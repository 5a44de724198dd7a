package expiry

import (
	"context"
	"sync"
	"time"
)

// BucketScheduler asks for each expiry bucket's task once per process instead of once per coupon:
// it remembers a bucket it has queued until the task is due (the minute after the bucket's
// minute). Coupons added to the bucket before then are expired by that task, and none can be
// added later (a coupon ends at least an hour after its claim, or at its template's end, after
// which nothing is claimed). The queue deduplicates by task id anyway; this spares the round trip.
type BucketScheduler struct {
	sched Scheduler
	mu    sync.Mutex
	due   map[bucketRef]time.Time
}

// Scheduler queues the task that expires one bucket; jobs.Queue implements it. Asking twice for
// one bucket is harmless (the task id is deterministic).
type Scheduler interface {
	// ExpireBucket asks for the template's coupons ending within the minute that starts at minute
	// to be expired once that minute is over.
	ExpireBucket(ctx context.Context, templateID int64, minute time.Time) error
}

type bucketRef struct {
	template int64
	minute   int64
}

// NewBucketScheduler returns a BucketScheduler over s.
func NewBucketScheduler(s Scheduler) *BucketScheduler {
	return &BucketScheduler{sched: s, due: map[bucketRef]time.Time{}}
}

// Schedule asks for the bucket's task unless this process already did and it is not due yet.
func (b *BucketScheduler) Schedule(ctx context.Context, templateID int64, minute time.Time) error {
	ref := bucketRef{templateID, minute.Unix()}
	now := time.Now()
	b.mu.Lock()
	due, seen := b.due[ref]
	b.mu.Unlock()
	if seen && now.Before(due) {
		return nil
	}
	if err := b.sched.ExpireBucket(ctx, templateID, minute); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.due) >= 100_000 {
		for r, d := range b.due {
			if !now.Before(d) {
				delete(b.due, r)
			}
		}
	}
	b.due[ref] = minute.Add(time.Minute)
	return nil
}
