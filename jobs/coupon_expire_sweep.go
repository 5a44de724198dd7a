package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"
)

// TypeExpireSweep is the periodic safety net of expiry: it expires every UNUSED coupon past its end
// that no bucket task expired (see expiry.Expirer.Sweep).
const TypeExpireSweep = "coupon:expire-sweep"

// NewExpireSweepTask returns the periodic task.
func NewExpireSweepTask() *asynq.Task { return asynq.NewTask(TypeExpireSweep, nil) }

func (h ExpiryHandlers) handleExpireSweep(ctx context.Context, _ *asynq.Task) error {
	n, err := h.Expirer.Sweep(ctx)
	if n > 0 { // a bucket task missed these: worth seeing even when the run then failed
		slog.InfoContext(ctx, "expiry sweep expired coupons no bucket task had", "count", n)
	}
	if err != nil {
		return fmt.Errorf("expiry sweep: %w", err)
	}
	return nil
}
