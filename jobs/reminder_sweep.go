package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"coupond/coupon/reminder"

	"github.com/hibiken/asynq"
)

// TypeReminderSweep is the periodic safety net of reminders: it sends PENDING reminders overdue
// whatever happened to their bucket's task (see reminder.Service.Sweep).
const TypeReminderSweep = "reminder:sweep"

// NewReminderSweepTask returns the periodic task.
func NewReminderSweepTask() *asynq.Task { return asynq.NewTask(TypeReminderSweep, nil) }

func (h ReminderHandlers) handleReminderSweep(ctx context.Context, _ *asynq.Task) error {
	out, err := h.Reminders.Sweep(ctx)
	if out != (reminder.Outcome{}) { // a bucket task missed these: worth seeing even when the run then failed
		slog.InfoContext(ctx, "reminder sweep sent reminders no bucket task had", "sent", out.Sent,
			"retrying", out.Retrying, "failed", out.Failed, "skipped", out.Skipped)
	}
	if err != nil {
		return fmt.Errorf("reminder sweep: %w", err)
	}
	return nil
}
