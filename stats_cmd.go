package main

import (
	"context"
	"fmt"
	"strconv"

	"coupond/coupon/keys"
	"coupond/jobs"

	"github.com/hibiken/asynq"
)

// queueStatsRebuild is `coupond stats-rebuild <templateId>`: it queues the rebuild of the
// template's daily stats from MySQL (jobs.TypeRebuildStats), which a running worker does.
func queueStatsRebuild(cfg config, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: coupond stats-rebuild <templateId>")
	}
	id, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("stats-rebuild: %q is not a template id", args[0])
	}
	keys.SetNamespace(cfg.RedisNamespace)
	c := asynq.NewClient(queueConnOpt(cfg))
	defer c.Close()
	if err := jobs.NewQueue(c).RebuildStats(context.Background(), id, nil, nil); err != nil {
		return fmt.Errorf("stats-rebuild: %w", err)
	}
	fmt.Printf("queued the stats rebuild of template %d\n", id)
	return nil
}
