package jobs

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hibiken/asynq"
)

// TypePersistOutbox drains one template's outbox of accepted claims into MySQL.
const TypePersistOutbox = "outbox:persist"

type persistOutboxPayload struct {
	TemplateID int64 `json:"templateId,string"` // a string: asynqmon shows numbers above 2^53 rounded
}

// NewPersistOutboxTask returns the task for one template. Its id is deterministic, so at most one
// is queued per template at a time.
func NewPersistOutboxTask(templateID int64) (*asynq.Task, []asynq.Option) {
	return asynq.NewTask(TypePersistOutbox, payload(persistOutboxPayload{TemplateID: templateID})),
		[]asynq.Option{asynq.TaskID("persist:" + strconv.FormatInt(templateID, 10)), asynq.MaxRetry(25),
			asynq.Queue(QueueName(QueueCritical))}
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
