// Package jobs holds coupond's asynq task types, one file per type (its Type constant, payload,
// constructor and handler), the Queue that enqueues them for the domain (coupon.Scheduler), and
// Register, which wires every handler into the worker's mux and every periodic task into the
// scheduler.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"coupond/coupon"

	"github.com/hibiken/asynq"
)

// Deps are the domain services the handlers call.
type Deps struct {
	Persister *coupon.Persister
	Expirer   *coupon.Expirer
	Queue     *Queue
}

// Register wires every task handler into mux.
func Register(mux *asynq.ServeMux, d Deps) {
	mux.HandleFunc(TypePersistOutbox, d.handlePersistOutbox)
	mux.HandleFunc(TypeDrainOutboxes, d.handleDrainOutboxes)
	mux.HandleFunc(TypeExpireBucket, d.handleExpireBucket)
	mux.HandleFunc(TypeExpireSweep, d.handleExpireSweep)
}

// RegisterPeriodic registers the periodic tasks with the scheduler. Every instance may run a
// scheduler: the tasks carry fixed ids, so only one of each is queued at a time.
func RegisterPeriodic(s *asynq.Scheduler, drainEvery, sweepEvery time.Duration) error {
	for _, p := range []struct {
		every time.Duration
		task  *asynq.Task
		id    string
	}{
		{drainEvery, NewDrainOutboxesTask(), TypeDrainOutboxes},
		{sweepEvery, NewExpireSweepTask(), TypeExpireSweep},
	} {
		if _, err := s.Register(fmt.Sprintf("@every %s", p.every), p.task, asynq.TaskID(p.id), asynq.MaxRetry(0)); err != nil {
			return fmt.Errorf("schedule %s: %w", p.id, err)
		}
	}
	return nil
}

// Queue enqueues tasks; it implements coupon.Scheduler.
type Queue struct{ client *asynq.Client }

// NewQueue returns a Queue over an asynq client.
func NewQueue(c *asynq.Client) *Queue { return &Queue{client: c} }

var _ coupon.Scheduler = (*Queue)(nil)

// enqueue enqueues t; a task with the same id already queued or running counts as success.
func (q *Queue) enqueue(ctx context.Context, t *asynq.Task, opts ...asynq.Option) error {
	_, err := q.client.EnqueueContext(ctx, t, opts...)
	if errors.Is(err, asynq.ErrTaskIDConflict) || errors.Is(err, asynq.ErrDuplicateTask) {
		return nil
	}
	return err
}

// payload encodes v as a task payload.
func payload(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("jobs: payload %T: %v", v, err)) // plain structs of numbers: cannot fail
	}
	return b
}

// decode reads a task payload; a malformed one is not retried.
func decode(t *asynq.Task, v any) error {
	if err := json.Unmarshal(t.Payload(), v); err != nil {
		return fmt.Errorf("%s: bad payload: %v: %w", t.Type(), err, asynq.SkipRetry)
	}
	return nil
}
