package lua

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

var countOnce = mustLoad("count_once.lua")

// Increment is one counter of a stats hash and what to add to it.
type Increment struct {
	Field string
	By    int64
}

// CountOnce runs count_once.lua: it applies the increments to the hash at statsKey unless the
// event's marker exists, and sets the marker for markerTTL; it reports whether it counted now.
// Both keys must carry the same hash tag.
func CountOnce(ctx context.Context, rdb redis.Scripter, statsKey, markerKey string, markerTTL time.Duration, incs ...Increment) (bool, error) {
	return countOnce.runFlag(ctx, rdb, []string{statsKey, markerKey}, countOnceArgs(markerTTL, incs)...)
}

// CountOnceIn queues count_once.lua (see CountOnce) on pipe, for Pipelined to send; a repeat
// counts nothing twice.
func CountOnceIn(ctx context.Context, pipe redis.Pipeliner, statsKey, markerKey string, markerTTL time.Duration, incs ...Increment) {
	countOnce.EvalSha(ctx, pipe, []string{statsKey, markerKey}, countOnceArgs(markerTTL, incs)...)
}

// countOnceArgs are count_once.lua's ARGV.
func countOnceArgs(markerTTL time.Duration, incs []Increment) []any {
	args := make([]any, 0, 1+2*len(incs))
	args = append(args, int64(markerTTL/time.Second))
	for _, in := range incs {
		args = append(args, in.Field, in.By)
	}
	return args
}
