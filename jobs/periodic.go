package jobs

import (
	"cmp"
	"fmt"
	"time"

	"coupond/defaults"

	"github.com/hibiken/asynq"
)

// Periods are the intervals of the periodic tasks.
type Periods struct {
	Drain time.Duration // outbox safety-net drain
	Sweep time.Duration // expiry sweep
	Reap  time.Duration // distribution reaper
	// Retain is how long the upload of an ended distribution task is kept; the retention job runs
	// hourly.
	Retain    time.Duration
	Checkout  time.Duration // checkout sweep (pending after-commit replays, expired locks); 0: defaults.CheckoutSweepEvery
	Archive   time.Duration // archive run (old coupons to user_coupon_archive)
	Reminder  time.Duration // reminder sweep (overdue reminders no bucket task sent); 0: defaults.ReminderSweepEvery
	Stats     time.Duration // stats roll-up; 0: defaults.StatsRollUpEvery
	Reconcile time.Duration // reconciliation of active templates' books
}

// RegisterPeriodic registers every periodic task with the scheduler (a zero period: not that one). Every instance may run a
// scheduler: each task is unique for its period (asynq.Unique, at least 1 s), so one of each is
// queued per period. No task carries a fixed id: one that failed and was archived (or was deleted in
// asynqmon) can never keep the next period's from being queued.
func RegisterPeriodic(s *asynq.Scheduler, p Periods) error {
	for _, e := range []struct {
		every time.Duration
		task  *asynq.Task
		queue string
	}{
		{p.Drain, NewDrainOutboxesTask(), QueueCritical},
		{p.Sweep, NewExpireSweepTask(), QueueDefault},
		{p.Reap, NewReapDistributionsTask(), QueueDefault},
		{retainEvery(p.Retain), NewRetainDistributionFilesTask(p.Retain), QueueLow},
		{cmp.Or(p.Checkout, defaults.CheckoutSweepEvery), NewCheckoutSweepTask(), QueueDefault},
		{p.Archive, NewArchiveTask(), QueueLow},
		{cmp.Or(p.Reminder, defaults.ReminderSweepEvery), NewReminderSweepTask(), QueueDefault},
		{cmp.Or(p.Stats, defaults.StatsRollUpEvery), NewRollUpStatsTask(), QueueLow},
		{p.Reconcile, NewReconcileTask(), QueueLow},
	} {
		if e.every <= 0 {
			continue // not scheduled in this process
		}
		_, err := s.Register(fmt.Sprintf("@every %s", e.every), e.task,
			asynq.Unique(max(e.every, time.Second)), asynq.MaxRetry(0), asynq.Queue(QueueName(e.queue)))
		if err != nil {
			return fmt.Errorf("schedule %s: %w", e.task.Type(), err)
		}
	}
	return nil
}

// retainEvery is the period of the retention job: hourly, or never without a retention.
func retainEvery(keep time.Duration) time.Duration {
	if keep <= 0 {
		return 0
	}
	return time.Hour
}
