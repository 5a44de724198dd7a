package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"coupond/coupon/keys"
	"coupond/jobs"
	"coupond/testutil/stack"

	"github.com/hibiken/asynq"
)

// The stats tasks through the mux: the roll-up copies a template's realtime counters into its
// row and sets the sentinel; a queued rebuild runs on the worker and recomputes the row from
// MySQL; a malformed rebuild payload is not retried.
func TestStatsTasks(t *testing.T) {
	ctx := context.Background()
	s := stack.New(t, "jobs", "stats", stack.Options{Worker: true})
	tpl := s.Template(t, 10, 1, nil)
	day := keys.StatsDay(time.Now())
	s.Redis.SAdd(ctx, keys.StatsTouched(day), tpl.ID)
	s.Redis.HSet(ctx, keys.DailyStats(tpl.ID, day), keys.StatIssuedClaim, 7)
	if err := s.Mux().ProcessTask(ctx, jobs.NewRollUpStatsTask()); err != nil {
		t.Fatal(err)
	}
	issued := func() int {
		var n int
		if err := s.SQL.QueryRow(`SELECT issued FROM template_daily_stats WHERE template_id = ?`, tpl.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := issued(); n != 7 || s.Redis.Exists(ctx, keys.StatsSentinel()).Val() != 1 {
		t.Fatalf("after the roll-up: issued %d (want 7), sentinel %d", n, s.Redis.Exists(ctx, keys.StatsSentinel()).Val())
	}
	// MySQL holds no coupon of the template: the rebuild says 0.
	if err := s.Queue.RebuildStats(ctx, tpl.ID, nil, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for issued() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the rebuild task did not run")
		}
		time.Sleep(50 * time.Millisecond)
	}
	err := s.Mux().ProcessTask(ctx, asynq.NewTask(jobs.TypeRebuildStats, []byte("{")))
	if !errors.Is(err, asynq.SkipRetry) {
		t.Fatalf("malformed payload: %v", err)
	}
}
