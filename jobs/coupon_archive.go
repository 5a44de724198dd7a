package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"
)

// TypeArchive is the periodic archive run: it moves coupons EXPIRED or USED longer than
// COUPON_ARCHIVE_AFTER to user_coupon_archive (see archive.Archiver.Run). A run stopped midway
// (timeout, shutdown, kill) is resumed by the next one at its cursor.
const TypeArchive = "coupon:archive"

// NewArchiveTask returns the periodic task.
func NewArchiveTask() *asynq.Task { return asynq.NewTask(TypeArchive, nil) }

func (h ArchiveHandlers) handleArchive(ctx context.Context, _ *asynq.Task) error {
	res, err := h.Archiver.Run(ctx)
	if res.Moved > 0 || res.Kept > 0 {
		slog.InfoContext(ctx, "archive moved coupons", "moved", res.Moved, "kept", res.Kept, "batches", res.Batches)
	}
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	return nil
}
