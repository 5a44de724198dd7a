package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
)

// TypeRebuildStats recomputes one template's daily stats from MySQL (stats.Service.Rebuild), on
// demand: after a Redis loss, or to check the counters against MySQL.
const TypeRebuildStats = "stats:rebuild"

// rebuildStatsPayload names the template and, optionally, the span of days.
type rebuildStatsPayload struct {
	TemplateID int64      `json:"templateId"`
	From       *time.Time `json:"from,omitempty"`
	To         *time.Time `json:"to,omitempty"`
}

// RebuildStats queues the rebuild of the template's days that [from, to) touches (nil: since its
// creation, up to today), on the low queue; one per template at a time (asynq.Unique, 1 min).
func (q *Queue) RebuildStats(ctx context.Context, templateID int64, from, to *time.Time) error {
	t := asynq.NewTask(TypeRebuildStats, payload(rebuildStatsPayload{TemplateID: templateID, From: from, To: to}))
	return q.enqueue(ctx, t, asynq.Queue(QueueName(QueueLow)), asynq.Unique(time.Minute))
}

func (h StatsHandlers) handleRebuildStats(ctx context.Context, t *asynq.Task) error {
	var p rebuildStatsPayload
	if err := decode(t, &p); err != nil {
		return err
	}
	n, err := h.Stats.Rebuild(ctx, p.TemplateID, p.From, p.To)
	slog.InfoContext(ctx, "stats rebuilt from MySQL", "template", p.TemplateID, "days", n)
	if err != nil {
		return fmt.Errorf("stats rebuild of template %d: %w", p.TemplateID, err)
	}
	return nil
}
