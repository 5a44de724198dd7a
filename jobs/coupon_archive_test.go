package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"coupond/coupon/archivedue"
	"coupond/ent/usercoupon"
	"coupond/idgen"
	"coupond/jobs"
	"coupond/testutil"
	"coupond/testutil/stack"

	"github.com/hibiken/asynq"
)

// The periodic archive task, scheduled every second and run by a worker, moves the old coupons
// and only those.
func TestPeriodicArchiveMovesOldCoupons(t *testing.T) {
	s := stack.New(t, "jobs", "archive", stack.Options{Worker: true})
	ctx := context.Background()
	long := time.Now().UTC().Add(-100 * 24 * time.Hour)
	for i := range 40 {
		st, changed := usercoupon.StatusEXPIRED, long
		if i%4 == 0 {
			st, changed = usercoupon.StatusUSED, time.Now() // used just now: stays
		}
		id := idgen.Next()
		if err := s.DB.UserCoupon.Create().SetID(id).SetUserID(int64(500 + i)).SetTemplateID(3).
			SetRedemptionID(fmt.Sprintf("jobs-arch-%d", i)).SetReceiveCount(1).
			SetSource(usercoupon.SourceCLAIM).SetStatus(st).SetValidStartTime(long.Add(-time.Hour)).
			SetValidEndTime(long).SetUpdatedAt(changed).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		// queued for the archive, as the expiry and the payment's confirmation do
		if err := archivedue.Add(ctx, s.DB.ArchiveDue, changed, archivedue.Coupon{UserID: int64(500 + i), ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	sched := asynq.NewScheduler(testutil.QueueOpt(), &asynq.SchedulerOpts{LogLevel: asynq.FatalLevel})
	if err := jobs.RegisterPeriodic(sched, jobs.Periods{Archive: time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := sched.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Shutdown)
	deadline := time.Now().Add(20 * time.Second)
	for {
		archived := s.DB.UserCouponArchive.Query().CountX(ctx)
		if archived == 30 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d coupons archived after 20 s, want 30", archived)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // another period: nothing more moves
	if hot, cold := s.DB.UserCoupon.Query().CountX(ctx), s.DB.UserCouponArchive.Query().CountX(ctx); hot != 10 || cold != 30 {
		t.Fatalf("%d hot + %d archived, want 10 + 30", hot, cold)
	}
	if n := s.DB.UserCoupon.Query().Where(usercoupon.StatusEQ(usercoupon.StatusUSED)).CountX(ctx); n != 10 {
		t.Fatalf("%d recently used coupons left, want 10", n)
	}
}
