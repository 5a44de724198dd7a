package jobs_test

import (
	"testing"
	"time"

	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent/coupontemplatelog"
	"coupond/jobs"
	"coupond/testutil"
	"coupond/testutil/stack"

	"github.com/hibiken/asynq"
)

// The scheduler queues reconcile:run every period and the worker runs it: a drift injected into
// Redis is recorded in the template's audit trail within a few periods, once.
func TestPeriodicReconciliationRecordsDrift(t *testing.T) {
	s := stack.New(t, "jobs", "reconcile", stack.Options{Worker: true})
	sched := asynq.NewScheduler(testutil.QueueOpt(), &asynq.SchedulerOpts{LogLevel: asynq.FatalLevel})
	if err := jobs.RegisterPeriodic(sched, jobs.Periods{Reconcile: time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := sched.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Shutdown)
	tpl := s.Template(t, 10, 1, nil)
	s.Redis.HIncrBy(s.Ctx, keys.Template(tpl.ID), "stock", 2)
	drifts := func() int {
		n, err := s.DB.CouponTemplateLog.Query().Where(coupontemplatelog.TemplateID(tpl.ID),
			coupontemplatelog.Action(template.ActionReconcileDrift)).Count(s.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for drifts() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no RECONCILE_DRIFT row after 10 s of 1 s periods")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2500 * time.Millisecond) // two more periods: the same drift is not recorded again
	if n := drifts(); n != 1 {
		t.Fatalf("%d RECONCILE_DRIFT rows for one drift", n)
	}
}
