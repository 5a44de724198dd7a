package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon/expiry"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/idgen"
	"coupond/jobs"
	"coupond/testutil"
	"coupond/testutil/stack"

	"github.com/hibiken/asynq"
)

var expSeq atomic.Int64

// expCoupon inserts an UNUSED coupon ending at end.
func expCoupon(t *testing.T, db *ent.Client, userID, templateID int64, end time.Time) *ent.UserCoupon {
	t.Helper()
	ctx := context.Background()
	n := expSeq.Add(1)
	uc, err := db.UserCoupon.Create().SetID(idgen.Next()).SetUserID(userID).SetTemplateID(templateID).
		SetRedemptionID(fmt.Sprintf("jobs-rd-%d", n)).
		SetReceiveCount(int(n)).SetSource(usercoupon.SourceCLAIM).
		SetValidStartTime(end.Add(-time.Hour)).SetValidEndTime(end).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return uc
}

func TestNewExpireBucketTaskIsDeterministic(t *testing.T) {
	minute := time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)
	task, opts := jobs.NewExpireBucketTask(42, minute.Add(17*time.Second)) // any instant within the minute
	if task.Type() != jobs.TypeExpireBucket {
		t.Fatalf("type %q", task.Type())
	}
	if want := fmt.Sprintf(`{"templateId":"42","minute":%d}`, minute.Unix()); string(task.Payload()) != want {
		t.Fatalf("payload %s, want %s", task.Payload(), want)
	}
	var id string
	var at time.Time
	for _, o := range opts {
		switch o.Type() {
		case asynq.TaskIDOpt:
			id = o.Value().(string)
		case asynq.ProcessAtOpt:
			at = o.Value().(time.Time)
		}
	}
	if want := fmt.Sprintf("expire:42:%d", minute.Unix()); id != want {
		t.Fatalf("task id %q, want %q", id, want)
	}
	if !at.Equal(minute.Add(time.Minute)) {
		t.Fatalf("process at %v, want %v", at, minute.Add(time.Minute))
	}
}

func TestQueueExpireBucketSchedulesMonthsAheadOnce(t *testing.T) {
	ctx := context.Background()
	s := stack.New(t, "jobs", "expire_ahead", stack.Options{})
	q := s.Queue
	minute := expiry.BucketMinute(time.Now().Add(90 * 24 * time.Hour))
	for range 3 { // every persisted coupon of the bucket asks again
		if err := q.ExpireBucket(ctx, 7, minute); err != nil {
			t.Fatal(err)
		}
	}
	insp := asynq.NewInspector(testutil.QueueOpt())
	defer insp.Close()
	tasks, err := insp.ListScheduledTasks(jobs.QueueName(jobs.QueueDefault))
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 {
		t.Fatalf("%d scheduled tasks, want 1", len(tasks))
	}
	got := tasks[0]
	if want := fmt.Sprintf("expire:7:%d", minute.Unix()); got.ID != want || got.Type != jobs.TypeExpireBucket {
		t.Fatalf("scheduled %s %q, want %s %q", got.Type, got.ID, jobs.TypeExpireBucket, want)
	}
	if d := got.NextProcessAt.Sub(minute.Add(time.Minute)); d < -time.Second || d > time.Second {
		t.Fatalf("process at %v, want %v", got.NextProcessAt, minute.Add(time.Minute))
	}
}

func TestExpireBucketTaskEndToEnd(t *testing.T) {
	ctx := context.Background()
	s := stack.New(t, "jobs", "expire_e2e", stack.Options{Worker: true})
	db, rdb := s.DB, s.Redis

	const tpl = 501
	end := time.Now().UTC().Add(-2 * time.Minute) // a short validity, already over
	minute := expiry.BucketMinute(end)
	persist := func(c *ent.UserCoupon) { // what every path does after committing a coupon
		if err := s.Issuer.AfterCommit(ctx, tpl, []*ent.UserCoupon{c}, 1); err != nil {
			t.Fatal(err)
		}
	}
	waitExpired := func(c *ent.UserCoupon) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			got, err := db.UserCoupon.Query().Where(usercoupon.UserID(c.UserID), usercoupon.ID(c.ID)).Only(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status == usercoupon.StatusEXPIRED {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("coupon %d still %s after 15s", c.ID, got.Status)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// Counted on the day the tasks run (UTC); a run across midnight counts on both days.
	days := []string{keys.StatsDay(time.Now())}
	first := expCoupon(t, db, 1, tpl, end)
	persist(first)
	waitExpired(first)

	// A coupon joining the same bucket after its task ran (a late persister) gets a new task: the
	// finished one keeps no id behind.
	second := expCoupon(t, db, 2, tpl, minute.Add(30*time.Second))
	persist(second)
	waitExpired(second)

	if today := keys.StatsDay(time.Now()); today != days[0] {
		days = append(days, today)
	}
	deadline := time.Now().Add(5 * time.Second)
	for rdb.Exists(ctx, keys.ExpiryBucket(tpl, minute.Unix())).Val() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("bucket not emptied")
		}
		time.Sleep(20 * time.Millisecond)
	}
	expired := 0
	for _, day := range days {
		n, _ := rdb.HGet(ctx, keys.DailyStats(tpl, day), "expired").Int()
		expired += n
	}
	if expired != 2 {
		t.Fatalf("stats expired = %d, want 2", expired)
	}
}

func TestExpireHandlersThroughTheMux(t *testing.T) {
	ctx := context.Background()
	s := stack.New(t, "jobs", "expire_mux", stack.Options{})
	db, mux := s.DB, s.Mux()

	// The sweep catches a coupon no bucket ever named.
	c := expCoupon(t, db, 3, 601, time.Now().UTC().Add(-time.Hour))
	if err := mux.ProcessTask(ctx, jobs.NewExpireSweepTask()); err != nil {
		t.Fatal(err)
	}
	got, err := db.UserCoupon.Query().Where(usercoupon.UserID(c.UserID), usercoupon.ID(c.ID)).Only(ctx)
	if err != nil || got.Status != usercoupon.StatusEXPIRED {
		t.Fatalf("after sweep: %v %v, want EXPIRED", got, err)
	}

	// A malformed bucket payload is not retried.
	err = mux.ProcessTask(ctx, asynq.NewTask(jobs.TypeExpireBucket, []byte("not json")))
	if !errors.Is(err, asynq.SkipRetry) {
		t.Fatalf("malformed payload: %v, want SkipRetry", err)
	}
}
