package jobs

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// TypeCountDistribution counts the data rows of a distribution task's file (send_num).
const TypeCountDistribution = "distribution:count"

// NewCountDistributionTask returns the count of one task after delay, on the low queue, with an
// id per (task, delay): the count right after creation and the second one 20 s later, a fallback for a first count that was lost.
func NewCountDistributionTask(taskID int64, delay time.Duration) (*asynq.Task, []asynq.Option) {
	id := TypeCountDistribution + ":" + strconv.FormatInt(taskID, 10) + ":" + delay.String()
	return asynq.NewTask(TypeCountDistribution, payload(distributionPayload{TaskID: taskID})),
		[]asynq.Option{asynq.Queue(QueueName(QueueLow)), asynq.MaxRetry(3), asynq.ProcessIn(delay), asynq.TaskID(id)}
}

// CountDistribution implements distribution.Scheduler.
func (q *Queue) CountDistribution(ctx context.Context, taskID int64, delay time.Duration) error {
	t, opts := NewCountDistributionTask(taskID, delay)
	return q.enqueue(ctx, t, opts...)
}

func (h DistributionHandlers) handleCountDistribution(ctx context.Context, t *asynq.Task) error {
	var p distributionPayload
	if err := decode(t, &p); err != nil {
		return err
	}
	if err := h.Service.Count(ctx, p.TaskID); err != nil {
		return fmt.Errorf("count distribution task %d: %w", p.TaskID, err)
	}
	return nil
}
