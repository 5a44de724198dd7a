package jobs

import (
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// Periods are the intervals of the periodic tasks.
type Periods struct {
	Drain time.Duration // outbox safety-net drain
	Sweep time.Duration // expiry sweep
}

// RegisterPeriodic registers every periodic task with the scheduler. Every instance may run a
// scheduler: the tasks carry fixed ids, so only one of each is queued at a time.
func RegisterPeriodic(s *asynq.Scheduler, p Periods) error {
	for _, e := range []struct {
		every time.Duration
		task  *asynq.Task
		queue string
	}{
		{p.Drain, NewDrainOutboxesTask(), QueueCritical},
		{p.Sweep, NewExpireSweepTask(), QueueDefault},
	} {
		id := e.task.Type()
		_, err := s.Register(fmt.Sprintf("@every %s", e.every), e.task,
			asynq.TaskID(id), asynq.MaxRetry(0), asynq.Queue(QueueName(e.queue)))
		if err != nil {
			return fmt.Errorf("schedule %s: %w", id, err)
		}
	}
	return nil
}
