package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"
)

// TypeCheckoutSweep is the checkout's periodic safety net: it replays after-commit work a crash
// left undone and releases expired locks whose task did not run (checkout.Service.Sweep).
const TypeCheckoutSweep = "checkout:sweep"

// NewCheckoutSweepTask returns the periodic task.
func NewCheckoutSweepTask() *asynq.Task { return asynq.NewTask(TypeCheckoutSweep, nil) }

func (h CheckoutHandlers) handleCheckoutSweep(ctx context.Context, _ *asynq.Task) error {
	res, err := h.Checkout.Sweep(ctx)
	if res.Replayed > 0 || res.Released > 0 {
		slog.InfoContext(ctx, "checkout sweep", "replayed", res.Replayed, "released", res.Released)
	}
	if err != nil {
		return fmt.Errorf("checkout sweep: %w", err)
	}
	return nil
}
