package jobs

import (
	"context"
	"log/slog"

	"github.com/hibiken/asynq"
)

// TypeReapDistributions queues a run of every distribution task that should be running and that
// no worker holds (periodic).
const TypeReapDistributions = "distribution:reap"

// NewReapDistributionsTask returns the periodic reaper task.
func NewReapDistributionsTask() *asynq.Task { return asynq.NewTask(TypeReapDistributions, nil) }

func (h DistributionHandlers) handleReapDistributions(ctx context.Context, _ *asynq.Task) error {
	n, err := h.Service.Reap(ctx)
	if n > 0 {
		slog.InfoContext(ctx, "distribution tasks queued by the reaper", "tasks", n)
	}
	return err
}
