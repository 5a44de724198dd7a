package jobs_test

import (
	"testing"
	"time"

	"coupond/coupon/claim"
	"coupond/jobs"
	"coupond/services"
	"coupond/testutil"
	"coupond/testutil/stack"

	"github.com/hibiken/asynq"
)

// claimN makes users first … first+n-1 claim once each.
func claimN(t *testing.T, s *e2e, id int64, first, n int) {
	t.Helper()
	for u := first; u < first+n; u++ {
		if _, err := s.Redeemer.Redeem(s.Ctx, int64(u), id, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// An operator archives (or deletes) the template's persist task in asynqmon: persistence goes on,
// because no task id is fixed and the periodic drain queues a fresh task.
func TestArchivedPersistTaskCannotStopPersistence(t *testing.T) {
	s := &e2e{stack.New(t, "jobs", "archived", stack.Options{
		Config: services.Config{Redeem: claim.Config{UserRate: 100}},
	})}
	id := s.template(t, 100, 1)
	claimN(t, s, id, 1, 20)
	if err := s.Queue.PersistOutbox(s.Ctx, id); err != nil {
		t.Fatal(err)
	}
	insp := asynq.NewInspector(testutil.QueueOpt())
	defer insp.Close()
	if n, err := insp.ArchiveAllPendingTasks(jobs.QueueName(jobs.QueueCritical)); err != nil || n != 1 {
		t.Fatalf("archived %d persist tasks, %v; want 1", n, err)
	}
	s.StartWorker(t)
	startPeriodic(t, time.Second)
	if took := s.waitPersisted(t, id, 20); took > 5*time.Second {
		t.Fatalf("persisted %v after the worker started; want within 5 s", took)
	}
	// Deleting what is queued does not stop it either.
	claimN(t, s, id, 100, 10)
	if err := s.Queue.PersistOutbox(s.Ctx, id); err != nil {
		t.Fatal(err)
	}
	_, _ = insp.DeleteAllPendingTasks(jobs.QueueName(jobs.QueueCritical))
	s.waitPersisted(t, id, 30)
}

// MySQL refuses the persister for 1.5 s (its table gone): once it is back, persistence resumes
// within 2 s, not after asynq's growing retry backoff.
func TestPersistenceResumesSoonAfterADatabaseOutage(t *testing.T) {
	s := &e2e{stack.New(t, "jobs", "outage", stack.Options{
		Config: services.Config{Redeem: claim.Config{UserRate: 100, KickEvery: 10 * time.Millisecond}},
		Worker: true, Kick: true,
	})}
	startPeriodic(t, time.Second)
	id := s.template(t, 100, 1)
	if _, err := s.DB.ExecContext(s.Ctx, "RENAME TABLE user_coupon TO user_coupon_away"); err != nil {
		t.Fatal(err)
	}
	claimN(t, s, id, 1, 20)
	time.Sleep(1500 * time.Millisecond) // the persister fails meanwhile, and is retried
	if _, err := s.DB.ExecContext(s.Ctx, "RENAME TABLE user_coupon_away TO user_coupon"); err != nil {
		t.Fatal(err)
	}
	took := s.waitPersisted(t, id, 20)
	t.Logf("persisted %v after the database came back", took)
	if took > 2*time.Second {
		t.Fatalf("persisted %v after the database came back; want within 2 s", took)
	}
}

// startPeriodic runs the periodic tasks (the drain every period) until the test ends.
func startPeriodic(t *testing.T, every time.Duration) {
	t.Helper()
	sched := asynq.NewScheduler(testutil.QueueOpt(), &asynq.SchedulerOpts{LogLevel: asynq.FatalLevel})
	if err := jobs.RegisterPeriodic(sched, jobs.Periods{Drain: every, Sweep: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if err := sched.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Shutdown)
}
