package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// TypePersistOutbox drains one template's outbox of accepted claims into MySQL.
const TypePersistOutbox = "outbox:persist"

type persistOutboxPayload struct {
	TemplateID int64 `json:"templateId,string"` // a string: asynqmon shows numbers above 2^53 rounded
}

// persistUnique is how long one template's persist task keeps further ones out (asynq.Unique)
// unless it finishes first. Uniqueness only spares duplicates: it never outlives this, so a task
// stuck in retry, archived or deleted in asynqmon delays the template's persistence by at most
// this long (the next kick or periodic drain queues a fresh task, with a fresh id), and the
// persister's lease, not the task, decides who drains.
const persistUnique = time.Second

// NewPersistOutboxTask returns the task for one template: on the critical queue, unique for
// persistUnique, retried a few times at short intervals (RetryDelay).
func NewPersistOutboxTask(templateID int64) (*asynq.Task, []asynq.Option) {
	return asynq.NewTask(TypePersistOutbox, payload(persistOutboxPayload{TemplateID: templateID})),
		[]asynq.Option{asynq.Unique(persistUnique), asynq.MaxRetry(3), asynq.Queue(QueueName(QueueCritical))}
}

// PersistOutbox implements claim.Scheduler.
func (q *Queue) PersistOutbox(ctx context.Context, templateID int64) error {
	t, opts := NewPersistOutboxTask(templateID)
	return q.enqueue(ctx, t, opts...)
}

func (h ClaimHandlers) handlePersistOutbox(ctx context.Context, t *asynq.Task) error {
	var p persistOutboxPayload
	if err := decode(t, &p); err != nil {
		return err
	}
	if _, err := h.Persister.Drain(ctx, p.TemplateID); err != nil {
		return fmt.Errorf("persist outbox of template %d: %w", p.TemplateID, err)
	}
	return nil
}
