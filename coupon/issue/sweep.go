package issue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"coupond/ent"
	"coupond/ent/schematype"
	"coupond/ent/stockbatch"
	"coupond/store"
)

// SweepAfter is how long a claim batch's header may stay OPEN before the sweep settles it: far
// longer than a live batch's T2s take (one persist batch each, milliseconds), and short enough
// that claims put off behind a dead batch (ErrBusy) are written a few seconds after the crash. A
// T2 that is only slow is not lost: the fence makes it fail (ErrFenced) and its claims are
// written again.
const SweepAfter = 3 * time.Second

// Fence fences every user shard's share of claim header h (fenceSweep; the items grouped over
// shards as its T2s were): when it returns, each T2 of h has committed or never will (ErrFenced).
func Fence(ctx context.Context, db *ent.Client, h *ent.StockBatch, shards int) error {
	for _, g := range store.GroupByUserShard(h.Items, shards, func(it schematype.BatchItem) int64 { return it.User }) {
		if err := fenceSweep(ctx, db, h.ID, g[0].User); err != nil {
			return err
		}
	}
	return nil
}

// Sweep settles the OPEN claim headers older than after (a persister crashed or stalled between
// T1 and T3): each from the coupons carrying it (its T2s that committed), giving back the other
// units. Before counting a header's coupons it fences it (Fence), so no T2 of it can commit
// afterwards and the count is final. The claims it reserved for are still in their outbox (acknowledged only after T3) and
// are persisted again by the next batch, their coupons recognised as written. Distribution
// headers are finished by their task's run, which resumes its batch. It returns how many headers
// it settled.
func Sweep(ctx context.Context, db *ent.Client, after time.Duration, shards int) (int, error) {
	hs, err := db.StockBatch.Query().Where(stockbatch.StateEQ(stockbatch.StateOPEN), stockbatch.SourceEQ(stockbatch.SourceCLAIM),
		stockbatch.CreatedAtLT(time.Now().Add(-after))).Limit(100).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("open stock batches: %w", err)
	}
	settled := 0
	for _, h := range hs {
		done, err := Abandon(ctx, db, h, shards)
		if err != nil {
			return settled, err
		}
		if done {
			settled++
			sweptTotal.Inc()
		}
	}
	return settled, nil
}

// Abandon settles claim header h now, as the sweep does: it fences it (Fence), so no T2 of it can
// commit afterwards, counts the coupons carrying it (its T2s that committed) and settles it with
// that, giving back the other units. A persister whose T2 failed calls it for its own header, so
// the units it reserved go back at once rather than after SweepAfter (the claims stay in their
// outbox for the next batch). It reports whether it settled h (false: settled already).
func Abandon(ctx context.Context, db *ent.Client, h *ent.StockBatch, shards int) (bool, error) {
	if err := Fence(ctx, db, h, shards); err != nil {
		return false, err
	}
	w, err := WrittenOf(ctx, db, h)
	if err != nil {
		return false, err
	}
	switch err := Settle(ctx, db, h, Settlement{Carried: slices.Collect(maps.Values(w))}); {
	case errors.Is(err, ErrSettled): // its persister or the sweep finished it meanwhile
		return false, nil
	case err != nil:
		return false, err
	}
	slog.WarnContext(ctx, "settled a stock batch left open", "template", h.TemplateID, "batch", h.ID,
		"reserved", h.Reserved, "used", len(w))
	return true, nil
}
