package lua

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

var reconcileSnapshot = mustLoad("reconcile_snapshot.lua")

// SnapshotKeys are the keys reconcile_snapshot.lua reads, all with one template's hash tag.
type SnapshotKeys struct {
	Template         string   // the template cache hash
	Outbox           string   // the template's outbox stream
	RedemptionPrefix string   // the template's redemption key less the redemption id
	Journals         []string // journal hashes of the template's tasks that may be running
	Counters         []string // users' claim hashes
}

// SnapshotEntry is one claim in the outbox as the snapshot saw it.
type SnapshotEntry struct {
	StreamID     string
	RedemptionID string // "" for a malformed entry
	UserID       int64  // 0 for a malformed entry
	// Owed: its redemption key exists, a failed claim's unit is not given back yet. An entry
	// appended between the outbox read that declares the redemption keys and the script counts
	// as owed: that new, its claim cannot have failed and been given back yet.
	Owed bool
}

// Snapshot is one template's Redis side at one instant.
type Snapshot struct {
	Cached       bool  // the complete hash exists; Stock and Total are its fields
	Stock, Total int64 // the hash's stock and total
	Truncated    bool  // the outbox held more entries than asked for: Entries is empty
	Entries      []SnapshotEntry
	Journals     [][]*Journal // per SnapshotKeys.Journals, the batches in flight (ordered by start)
	Counters     []int64      // per SnapshotKeys.Counters, the "n" field, -1 where there is none
	Counts       StockCounts  // the hash's stock and borrow counts
	// Epochs holds, per stock shard (one for a template without), the epoch the script raised
	// that shard's hash to (0 when not Cached): a unit taken on the shard before the script carries
	// less (OutboxEntry.Epoch, Journal.Epoch), one taken after at least as much.
	Epochs []int64
}

// ReconcileSnapshot reads the outbox's redemption ids (up to maxEntries+1 entries), then runs
// reconcile_snapshot.lua with their redemption keys declared: it reads the hash, the outbox (when
// it holds at most maxEntries entries), the journals and the counters in one atomic script,
// which raises the hash's epoch (Snapshot.Epochs holds the one epoch) and writes nothing else.
func ReconcileSnapshot(ctx context.Context, rdb redis.Cmdable, k SnapshotKeys, maxEntries int) (*Snapshot, error) {
	seen, err := rdb.XRangeN(ctx, k.Outbox, "-", "+", int64(maxEntries)+1).Result()
	if err != nil {
		return nil, err
	}
	ks := make([]string, 0, 2+len(k.Journals)+len(k.Counters)+len(seen))
	ks = append(append(append(ks, k.Template, k.Outbox), k.Journals...), k.Counters...)
	if len(seen) <= maxEntries {
		for _, m := range seen {
			if rid, ok := m.Values["rid"].(string); ok && rid != "" {
				ks = append(ks, k.RedemptionPrefix+rid)
			}
		}
	}
	raw, err := reconcileSnapshot.Run(ctx, rdb, ks, len(k.Journals), len(k.Counters), maxEntries, k.RedemptionPrefix).Slice()
	if err != nil {
		return nil, err
	}
	if len(raw) != 9 {
		return nil, fmt.Errorf("lua: reconcile snapshot: %d values", len(raw))
	}
	num := func(v any) int64 { n, _ := v.(int64); return n }
	s := &Snapshot{Cached: num(raw[0]) == 1, Stock: num(raw[1]), Total: num(raw[2]), Truncated: num(raw[3]) == 1, Epochs: []int64{num(raw[8])}}
	entries, _ := raw[4].([]any)
	for i := 0; i+3 < len(entries); i += 4 {
		e := SnapshotEntry{Owed: num(entries[i+3]) != 0}
		e.StreamID, _ = entries[i].(string)
		e.RedemptionID, _ = entries[i+1].(string)
		user, _ := entries[i+2].(string)
		if e.UserID, err = strconv.ParseInt(user, 10, 64); err != nil {
			e.RedemptionID, e.UserID = "", 0
		}
		s.Entries = append(s.Entries, e)
	}
	journals, _ := raw[5].([]any)
	for i, j := range journals {
		vals, _ := j.([]any)
		parsed, err := parseJournals(k.Journals[i], vals)
		if err != nil {
			return nil, err
		}
		s.Journals = append(s.Journals, parsed)
	}
	counters, _ := raw[6].([]any)
	for _, c := range counters {
		s.Counters = append(s.Counters, num(c))
	}
	counts, _ := raw[7].([]any)
	s.Counts = parseStockCounts(counts)
	return s, nil
}
