package expiry_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon/expiry"
	"coupond/jobs"
	"coupond/testutil"

	"github.com/hibiken/asynq"
)

// countingQueue counts the requests that reach the real queue.
type countingQueue struct {
	*jobs.Queue
	calls atomic.Int64
}

func (q *countingQueue) ExpireBucket(ctx context.Context, id int64, minute time.Time) error {
	q.calls.Add(1)
	return q.Queue.ExpireBucket(ctx, id, minute)
}

// A bucket's task is asked for once per process, not once per coupon joining it.
func TestBucketSchedulerAsksOncePerBucket(t *testing.T) {
	ctx := context.Background()
	testutil.Redis(t, "expiry_sched")
	client := asynq.NewClient(testutil.QueueOpt())
	defer client.Close()
	q := &countingQueue{Queue: jobs.NewQueue(client)}
	b := expiry.NewBucketScheduler(q)
	minute := time.Now().Add(48 * time.Hour).Truncate(time.Minute)
	for _, m := range []time.Time{minute, minute, minute, minute.Add(time.Minute)} {
		if err := b.Schedule(ctx, 42, m); err != nil {
			t.Fatal(err)
		}
	}
	if n := q.calls.Load(); n != 2 {
		t.Fatalf("%d requests reached the queue, want 2 (one per bucket)", n)
	}
	insp := asynq.NewInspector(testutil.QueueOpt())
	defer insp.Close()
	tasks, err := insp.ListScheduledTasks(jobs.QueueName(jobs.QueueDefault))
	if err != nil || len(tasks) != 2 {
		t.Fatalf("scheduled tasks = %d, %v; want 2", len(tasks), err)
	}
}
