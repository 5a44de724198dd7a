package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"
)

// TypeReconcile is the periodic reconciliation: it checks the books of the next active templates
// (coupon/reconcile, Reconciler.Run) and records the drifts it finds; it repairs nothing.
const TypeReconcile = "reconcile:run"

// NewReconcileTask returns the periodic task.
func NewReconcileTask() *asynq.Task { return asynq.NewTask(TypeReconcile, nil) }

func (h ReconcileHandlers) handleReconcile(ctx context.Context, _ *asynq.Task) error {
	res, err := h.Reconciler.Run(ctx)
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	if res.Drifting > 0 {
		slog.WarnContext(ctx, "reconciliation: books do not balance", "checked", res.Checked, "drifting", res.Drifting, "recorded", res.Recorded)
	}
	return nil
}
