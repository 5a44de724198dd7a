package reconcile

import (
	"context"
	"fmt"
	"slices"

	"coupond/coupon/keys"
	"coupond/lua"
)

// snapshotTries bounds the reads of a template with stock shards while borrows run between them.
const snapshotTries = 5

// snapshot reads template id's Redis side (lua.ReconcileSnapshot) with the journals of tasks and
// the claim counters of users. With one stock shard it is one script. With n > 1 it is one script
// per hash (the template's own, holding the reserve, then each shard's, with the outbox, journals
// and counters of that shard's tag), merged: the stock is what the hashes may still hand out (Σ
// lua.StockCounts.Available), the entries, journals and counters are the shards' together. The
// scripts run one after the other, so a borrow between two shards could fall between them; the
// hashes' borrow counts are read once more after the last script, and the scripts' reads are a
// consistent cut when no count moved (lua.StockCounts.SameMoves); else they are run again, up to
// snapshotTries times. skipped says why the stock could not be compared ("" when it could); then
// the snapshot is the template's own hash alone, marked Truncated, with no counters.
func (r *Reconciler) snapshot(ctx context.Context, id int64, n int, tasks, users []int64) (snap *lua.Snapshot, skipped string, err error) {
	if n <= 1 {
		snap, err = lua.ReconcileSnapshot(ctx, r.rdb, snapshotKeys(keys.StockShard(id, 0, 1), tasks, users), r.cfg.MaxOutbox)
		return snap, "", err
	}
	hashes := []keys.Shard{keys.StockShard(id, 0, 1)} // the reserve: its outbox, journals and counters are empty
	byShard := make([][]int64, n)
	for _, u := range users {
		byShard[keys.UserShard(u, n)] = append(byShard[keys.UserShard(u, n)], u)
	}
	for i := range n {
		hashes = append(hashes, keys.StockShard(id, i, n))
	}
	stockKeys := make([]string, len(hashes))
	for i, h := range hashes {
		stockKeys[i] = h.Stock()
	}
	for try := 0; try < snapshotTries; try++ {
		parts := make([]*lua.Snapshot, len(hashes))
		for i, h := range hashes {
			var mine []int64
			if i > 0 {
				mine = byShard[i-1]
			}
			if parts[i], err = lua.ReconcileSnapshot(ctx, r.rdb, snapshotKeys(h, tasks, mine), r.cfg.MaxOutbox); err != nil {
				return nil, "", err
			}
			if r.afterShardRead != nil {
				r.afterShardRead()
			}
		}
		after, err := lua.ReadStockCounts(ctx, r.rdb, stockKeys)
		if err != nil {
			return nil, "", err
		}
		if slices.EqualFunc(parts, after, func(p *lua.Snapshot, c lua.StockCounts) bool { return p.Counts.SameMoves(c) }) {
			return merge(parts, byShard, users), "", nil
		}
	}
	snap, err = lua.ReconcileSnapshot(ctx, r.rdb, snapshotKeys(hashes[0], tasks, nil), r.cfg.MaxOutbox)
	if err != nil {
		return nil, "", err
	}
	snap.Truncated = true
	return snap, fmt.Sprintf("borrows between the %d stock shards ran through %d reads: Redis not compared this time", n, snapshotTries), nil
}

// snapshotKeys are the keys of one hash's snapshot: shard s's hash, outbox, redemption keys, the
// journals of tasks and the claim counters of users, all on s's tag.
func snapshotKeys(s keys.Shard, tasks, users []int64) lua.SnapshotKeys {
	k := lua.SnapshotKeys{Template: s.Stock(), Outbox: s.Outbox(), RedemptionPrefix: s.Redemption("")}
	for _, t := range tasks {
		k.Journals = append(k.Journals, s.DistributionJournal(t))
	}
	for _, u := range users {
		k.Counters = append(k.Counters, s.ClaimCounter(u))
	}
	return k
}

// merge is the one snapshot of a template with stock shards: parts[0] of its own hash (the total
// and the reserve), parts[1+i] of shard i, whose counters are those of byShard[i] and whose epoch
// is Epochs[i]; the counters come back in the order of users.
func merge(parts []*lua.Snapshot, byShard [][]int64, users []int64) *lua.Snapshot {
	out := &lua.Snapshot{Cached: true, Total: parts[0].Total, Journals: make([][]*lua.Journal, len(parts[0].Journals))}
	for _, p := range parts[1:] {
		out.Epochs = append(out.Epochs, p.Epochs...)
	}
	counts := make([]lua.StockCounts, len(parts))
	counter := map[int64]int64{}
	for i, p := range parts {
		counts[i] = p.Counts
		out.Cached = out.Cached && p.Cached
		out.Truncated = out.Truncated || p.Truncated
		out.Entries = append(out.Entries, p.Entries...)
		for t, js := range p.Journals {
			out.Journals[t] = append(out.Journals[t], js...)
		}
		if i > 0 {
			for j, u := range byShard[i-1] {
				counter[u] = p.Counters[j]
			}
		}
	}
	out.Stock, _ = lua.SumAvailable(counts)
	if out.Truncated {
		out.Entries = nil
	}
	for _, u := range users {
		out.Counters = append(out.Counters, counter[u])
	}
	return out
}
