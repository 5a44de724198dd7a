package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
)

// TypeRetainDistributionFiles deletes the uploads of distribution tasks that ended long ago
// (periodic).
const TypeRetainDistributionFiles = "distribution:retain"

type retainPayload struct {
	Keep string `json:"keep"` // how long an ended task's file is kept, e.g. "168h0m0s"
}

// NewRetainDistributionFilesTask returns the periodic retention task keeping files for keep.
func NewRetainDistributionFilesTask(keep time.Duration) *asynq.Task {
	return asynq.NewTask(TypeRetainDistributionFiles, payload(retainPayload{Keep: keep.String()}))
}

func (h DistributionHandlers) handleRetainDistributionFiles(ctx context.Context, t *asynq.Task) error {
	var p retainPayload
	if err := decode(t, &p); err != nil {
		return err
	}
	keep, err := time.ParseDuration(p.Keep)
	if err != nil {
		return fmt.Errorf("%s: bad payload: %v: %w", t.Type(), err, asynq.SkipRetry)
	}
	n, err := h.Service.Retain(ctx, keep)
	if n > 0 {
		slog.InfoContext(ctx, "distribution uploads deleted", "files", n, "keptFor", keep)
	}
	return err
}
