package claim

import (
	"context"
	"log/slog"
	"time"
)

func (r *Redeemer) markDirty(id int64) {
	r.dirtyMu.Lock()
	r.dirty[id] = struct{}{}
	r.dirtyMu.Unlock()
}

// Run hands templates with new claims to the persister every KickEvery until ctx ends: one
// enqueue per template per tick, however many claims arrived, so the claim path itself makes no
// second round trip.
func (r *Redeemer) Run(ctx context.Context) {
	tick := time.NewTicker(r.cfg.KickEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.kick(context.WithoutCancel(ctx))
			return
		case <-tick.C:
			r.kick(ctx)
		}
	}
}

func (r *Redeemer) kick(ctx context.Context) {
	r.dirtyMu.Lock()
	ids := r.dirty
	r.dirty = map[int64]struct{}{}
	r.dirtyMu.Unlock()
	for id := range ids {
		if err := r.sched.PersistOutbox(ctx, id); err != nil {
			// The periodic drain picks the outbox up anyway.
			slog.WarnContext(ctx, "could not queue the persister", "template", id, "err", err)
		}
	}
}
