package jobs

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// TypeRunDistribution runs (or resumes) one distribution task.
const TypeRunDistribution = "distribution:run"

type distributionPayload struct {
	TaskID int64 `json:"taskId,string"` // a string: asynqmon shows numbers above 2^53 rounded
}

// distributionTimeout bounds one run; a longer file goes on in the next run (reaper), from its
// resume position.
const distributionTimeout = 6 * time.Hour

// NewRunDistributionTask returns the run of one task on the low (bulk) queue, processed at at.
// With dedupe the task's id is "distribution:run:<task>" (a repeated create queues nothing);
// without, it is unique for a few seconds only, so a stuck queued task never blocks a reaper's.
func NewRunDistributionTask(taskID int64, at time.Time, dedupe bool) (*asynq.Task, []asynq.Option) {
	opts := []asynq.Option{asynq.Queue(QueueName(QueueLow)), asynq.MaxRetry(10), asynq.Timeout(distributionTimeout), asynq.ProcessAt(at)}
	if dedupe {
		opts = append(opts, asynq.TaskID(TypeRunDistribution+":"+strconv.FormatInt(taskID, 10)))
	} else {
		opts = append(opts, asynq.Unique(5*time.Second))
	}
	return asynq.NewTask(TypeRunDistribution, payload(distributionPayload{TaskID: taskID})), opts
}

// RunDistribution implements distribution.Scheduler.
func (q *Queue) RunDistribution(ctx context.Context, taskID int64, at time.Time, dedupe bool) error {
	t, opts := NewRunDistributionTask(taskID, at, dedupe)
	return q.enqueue(ctx, t, opts...)
}

func (h DistributionHandlers) handleRunDistribution(ctx context.Context, t *asynq.Task) error {
	var p distributionPayload
	if err := decode(t, &p); err != nil {
		return err
	}
	if err := h.Service.Run(ctx, p.TaskID); err != nil {
		return fmt.Errorf("distribution task %d: %w", p.TaskID, err)
	}
	return nil
}
