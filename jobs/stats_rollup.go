package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"
)

// TypeRollUpStats is the periodic roll-up of the realtime stats counters into
// template_daily_stats, with the seal of closed days and the recovery after a Redis data loss
// (stats.Service.RollUp). Rerun-safe: it writes absolute values.
const TypeRollUpStats = "stats:rollup"

// NewRollUpStatsTask returns the periodic task.
func NewRollUpStatsTask() *asynq.Task { return asynq.NewTask(TypeRollUpStats, nil) }

func (h StatsHandlers) handleRollUpStats(ctx context.Context, _ *asynq.Task) error {
	res, err := h.Stats.RollUp(ctx)
	if res.Recovered {
		slog.WarnContext(ctx, "stats: Redis had lost its counters; locks recounted and open days rebuilt from MySQL")
	}
	if err != nil {
		return fmt.Errorf("stats roll-up: %w", err)
	}
	return nil
}
