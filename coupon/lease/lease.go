// Package lease is a Redis lease: one holder of a key at a time, renewed while held, lost (and
// its context cancelled) when the renewal fails or comes too late. Work that must run once at a
// time (a template's persister, a distribution task) holds one; a holder killed mid-work keeps
// others out for at most the lease's TTL.
package lease

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"coupond/lua"
)

// ErrLost is the cause of a held lease's context when the lease was renewed too late or taken over.
var ErrLost = errors.New("lease lost")

// Take takes the lease at key (SET NX PX ttl). When another holder has it, release is nil and
// nothing was taken. While held, the lease is renewed every ttl/3; the returned context ends
// (cause ErrLost) when the lease is lost, so the holder stops before a second one is sure to run.
// release stops the renewal and deletes the lease (only while it still holds this holder's token).
func Take(ctx context.Context, rdb redis.UniversalClient, key string, ttl time.Duration) (context.Context, func(), error) {
	token := rand.Text()
	ok, err := rdb.SetNX(ctx, key, token, ttl).Result()
	if err != nil {
		return ctx, nil, fmt.Errorf("take lease %s: %w", key, err)
	}
	if !ok {
		return ctx, nil, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(ttl / 3)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if renewed, err := lua.LeaseRenew(ctx, rdb, key, token, ttl); err != nil || !renewed {
					cancel(errors.Join(ErrLost, err))
					return
				}
			}
		}
	}()
	release := func() {
		close(done)
		cancel(nil)
		// Released even when the holder's context ended; a lease left behind expires anyway.
		if _, err := lua.Unlock(context.WithoutCancel(ctx), rdb, key, token); err != nil {
			slog.WarnContext(ctx, "lease not released; it expires", "key", key, "err", err)
		}
	}
	return ctx, release, nil
}
