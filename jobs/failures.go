package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"coupond/coupon"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var taskFailures = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "coupond_task_failures_total",
	Help: "Task runs that failed (domain refusals not counted), by task type.",
}, []string{"type"})

// IsFailure tells asynq which errors count as failures of a task (asynq.Config.IsFailure): a
// typed domain refusal (coupon.Error) is an answer, not a failure, so it does not count against
// the task's retries or the queue's error rate.
func IsFailure(err error) bool { return coupon.AsErrors(err) == nil }

// ErrorHandler counts and logs a failed task run (asynq.Config.ErrorHandler).
var ErrorHandler = asynq.ErrorHandlerFunc(func(ctx context.Context, t *asynq.Task, err error) {
	if !IsFailure(err) {
		return
	}
	taskFailures.WithLabelValues(t.Type()).Inc()
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	slog.WarnContext(ctx, "task failed", "type", t.Type(), "retried", retried, "maxRetry", maxRetry, "err", err)
})

// DelayedTaskCheck is how often the worker moves due retries and scheduled tasks to their queues
// (asynq.Config.DelayedTaskCheckInterval; asynq's default, 5 s, would make RetryDelay's short
// retries of persist tasks wait that long).
const DelayedTaskCheck = 250 * time.Millisecond

// TaskCheck is how long a worker whose queues were all empty waits before looking again
// (asynq.Config.TaskCheckInterval, waited as a random half to one and a half of it): asynq's
// default, 1 s, put 0.5 to 1.5 s between an upload and its distribution's start (a 200,000-row
// run takes a few seconds). An idle worker pays one dequeue script per TaskCheck.
const TaskCheck = 100 * time.Millisecond

// RetryDelay is the worker's retry schedule (asynq.Config.RetryDelayFunc): a persist task retries
// after 250 ms, 500 ms, 1 s (claims wait; the periodic drain also queues a fresh task every period),
// a task whose error says when to retry (reminder.RetryError: a failed delivery's backoff) then,
// every other task on asynq's default schedule.
func RetryDelay(n int, err error, t *asynq.Task) time.Duration {
	if t.Type() == TypePersistOutbox {
		return min(250*time.Millisecond<<min(n, 3), 2*time.Second)
	}
	var later interface{ RetryAfter() time.Duration }
	if errors.As(err, &later) {
		return later.RetryAfter()
	}
	return asynq.DefaultRetryDelayFunc(n, err, t)
}
