package jobs

import (
	"cmp"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// Periods are the intervals of the periodic tasks.
type Periods struct {
	Drain    time.Duration // outbox safety-net drain
	Sweep    time.Duration // expiry sweep
	Checkout time.Duration // checkout sweep (journal replays, expired locks); 0: one minute
}

// RegisterPeriodic registers every periodic task with the scheduler. Every instance may run a
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
		{cmp.Or(p.Checkout, time.Minute), NewCheckoutSweepTask(), QueueDefault},
	} {
		_, err := s.Register(fmt.Sprintf("@every %s", e.every), e.task,
			asynq.Unique(max(e.every, time.Second)), asynq.MaxRetry(0), asynq.Queue(QueueName(e.queue)))
		if err != nil {
			return fmt.Errorf("schedule %s: %w", e.task.Type(), err)
		}
	}
	return nil
}
