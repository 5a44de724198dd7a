package claim

import (
	"context"

	"coupond/coupon/keys"
	"coupond/coupon/lease"
)

// heldLease is a persister's lease on one template's outbox.
type heldLease struct {
	stop func() // stops the renewal and releases the lease
}

func (h *heldLease) release() { h.stop() }

// lease takes the persist lease of stock shard s's outbox (package lease, TTL LeaseTTL). When another persister
// holds it, it returns a nil lease. The returned context ends when the lease is lost, so the
// Drain stops before a second persister is sure to be working.
func (p *Persister) lease(ctx context.Context, s keys.Shard) (context.Context, *heldLease, error) {
	ctx, release, err := lease.Take(ctx, p.rdb, s.PersistLease(), p.cfg.LeaseTTL)
	if release == nil || err != nil {
		return ctx, nil, err
	}
	return ctx, &heldLease{stop: release}, nil
}
