package claim

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"coupond/coupon/keys"
	"coupond/lua"
)

// errLeaseLost ends a Drain whose lease was renewed too late or taken over.
var errLeaseLost = errors.New("persist lease lost")

// heldLease is a persister's lease on one template's outbox.
type heldLease struct {
	stop func() // stops the renewal and releases the lease
}

func (h *heldLease) release() { h.stop() }

// lease takes the template's persist lease (SET NX PX LeaseTTL). When another persister holds it,
// it returns a nil lease. While held, the lease is renewed every LeaseTTL/3; the returned context
// ends when the lease is lost, so the Drain stops before a second persister is sure to be working.
func (p *Persister) lease(ctx context.Context, templateID int64) (context.Context, *heldLease, error) {
	key, token := keys.PersistLease(templateID), rand.Text()
	ok, err := p.rdb.SetNX(ctx, key, token, p.cfg.LeaseTTL).Result()
	if err != nil {
		return ctx, nil, fmt.Errorf("take persist lease: %w", err)
	}
	if !ok {
		return ctx, nil, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(p.cfg.LeaseTTL / 3)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if renewed, err := lua.LeaseRenew(ctx, p.rdb, key, token, p.cfg.LeaseTTL); err != nil || !renewed {
					cancel(errors.Join(errLeaseLost, err))
					return
				}
			}
		}
	}()
	stop := func() {
		close(done)
		cancel(nil)
		// Released even when the drain's context ended; a lease left behind expires anyway.
		if _, err := lua.Unlock(context.WithoutCancel(ctx), p.rdb, key, token); err != nil {
			slog.WarnContext(ctx, "persist lease not released; it expires", "template", templateID, "err", err)
		}
	}
	return ctx, &heldLease{stop: stop}, nil
}
