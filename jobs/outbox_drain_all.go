package jobs

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"
)

// TypeDrainOutboxes is the periodic safety net of the claims: it settles the stock batches a
// crashed persister left OPEN, then queues a persister for every template whose outbox holds
// claims, so a claim is persisted even when the enqueue after it was lost or the process that
// accepted it died.
const TypeDrainOutboxes = "outbox:drain-all"

// NewDrainOutboxesTask returns the periodic task.
func NewDrainOutboxesTask() *asynq.Task { return asynq.NewTask(TypeDrainOutboxes, nil) }

func (h ClaimHandlers) handleDrainOutboxes(ctx context.Context, _ *asynq.Task) error {
	if _, err := h.Persister.SweepBatches(ctx); err != nil {
		return fmt.Errorf("settle abandoned stock batches: %w", err)
	}
	ids, err := h.Persister.NonEmptyOutboxes(ctx)
	if err != nil {
		return fmt.Errorf("find non-empty outboxes: %w", err)
	}
	for _, id := range ids {
		if err := h.Queue.PersistOutbox(ctx, id); err != nil {
			return fmt.Errorf("queue persister of template %d: %w", id, err)
		}
	}
	return nil
}
