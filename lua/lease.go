package lua

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

var leaseRenew = mustLoad("lease_renew.lua")

// LeaseRenew runs lease_renew.lua: it extends the lease at key to ttl from now when it is still
// held with token, and reports whether it was.
func LeaseRenew(ctx context.Context, rdb redis.Scripter, key, token string, ttl time.Duration) (bool, error) {
	return leaseRenew.runFlag(ctx, rdb, []string{key}, token, ceilMillis(ttl))
}
