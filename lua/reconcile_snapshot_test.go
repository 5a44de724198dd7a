package lua

import (
	"context"
	"slices"
	"testing"

	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

// The snapshot reads the hash, every outbox entry with whether its redemption key exists, the
// journals (absent ones nil) and the counters (absent ones -1), and refuses to read an outbox
// longer than asked; its one write raises the complete hash's epoch (a missing or partial hash is
// left as it is: no field created).
func TestReconcileSnapshotReadsOneInstant(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	k := SnapshotKeys{Template: ns + "{t8}:tpl", Outbox: ns + "{t8}:outbox", RedemptionPrefix: ns + "{t8}:rd:",
		Journals: []string{ns + "{t8}:dist:1", ns + "{t8}:dist:2"}, Counters: []string{ns + "{t8}:u:5", ns + "{t8}:u:6"}}
	empty, err := ReconcileSnapshot(ctx, rdb, k, 10)
	if err != nil || empty.Cached || empty.Truncated || len(empty.Entries) != 0 || !slices.Equal(empty.Counters, []int64{-1, -1}) ||
		len(empty.Journals) != 2 || len(empty.Journals[0]) != 0 || !slices.Equal(empty.Epochs, []int64{0}) {
		t.Fatalf("empty snapshot = %+v, %v", empty, err)
	}
	if rdb.Exists(ctx, k.Template).Val() != 0 {
		t.Fatal("a snapshot of a missing hash created it")
	}
	rdb.HSet(ctx, k.Template, "stock", 7) // partial: no data
	if partial, err := ReconcileSnapshot(ctx, rdb, k, 10); err != nil || partial.Cached || partial.Epochs[0] != 0 || rdb.HExists(ctx, k.Template, "epoch").Val() {
		t.Fatalf("snapshot of a partial hash = %+v, %v; want not cached, no epoch written", partial, err)
	}
	rdb.HSet(ctx, k.Template, "data", "{}", "stock", 7, "total", 10)
	for _, rid := range []string{"8-1", "8-2"} {
		rdb.XAdd(ctx, &redis.XAddArgs{Stream: k.Outbox, Values: []string{"rid", rid, "user", "5", "rc", "1", "ts", "1"}})
	}
	rdb.XAdd(ctx, &redis.XAddArgs{Stream: k.Outbox, Values: []string{"junk", "x"}})
	rdb.Set(ctx, k.RedemptionPrefix+"8-2", 5, 0)
	rdb.HSet(ctx, k.Counters[0], "n", 2, "seq", 3)
	rdb.HSet(ctx, k.Journals[1], "4", `{"start":4,"rows":[[5,"6",0,1],[6,"7",1,0]]}`)
	s, err := ReconcileSnapshot(ctx, rdb, k, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Cached || s.Stock != 7 || s.Total != 10 || s.Truncated || len(s.Entries) != 3 || !slices.Equal(s.Epochs, []int64{1}) {
		t.Fatalf("snapshot = %+v", s)
	}
	if e := s.Entries[0]; e.RedemptionID != "8-1" || e.UserID != 5 || e.Owed || e.StreamID == "" {
		t.Fatalf("entry 0 = %+v", e)
	}
	if e := s.Entries[1]; e.RedemptionID != "8-2" || !e.Owed {
		t.Fatalf("entry 1 = %+v", e)
	}
	if e := s.Entries[2]; e.RedemptionID != "" || e.UserID != 0 {
		t.Fatalf("malformed entry = %+v", e)
	}
	if !slices.Equal(s.Counters, []int64{2, -1}) {
		t.Fatalf("counters = %v", s.Counters)
	}
	if len(s.Journals[0]) != 0 || len(s.Journals[1]) != 1 || s.Journals[1][0].Start != 4 || len(s.Journals[1][0].Rows) != 2 ||
		s.Journals[1][0].Rows[0] != (JournalRow{Row: 5, UserID: 6, Code: DistributeOK, ReceiveCount: 1}) {
		t.Fatalf("journals = %+v", s.Journals)
	}
	short, err := ReconcileSnapshot(ctx, rdb, k, 2)
	if err != nil || !short.Truncated || len(short.Entries) != 0 || !short.Cached || !slices.Equal(short.Epochs, []int64{2}) {
		t.Fatalf("over the limit: %+v, %v", short, err)
	}
	if n := rdb.XLen(ctx, k.Outbox).Val(); n != 3 {
		t.Fatalf("the snapshot changed the outbox: %d entries", n)
	}
}

// An outbox entry appended after the wrapper's read has no declared redemption key: the script
// touches no undeclared key and reports it as -1, which the wrapper reads as owed.
func TestReconcileSnapshotUndeclaredEntryIsOwed(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	tpl, outbox, prefix := ns+"{t9}:tpl", ns+"{t9}:outbox", ns+"{t9}:rd:"
	rdb.XAdd(ctx, &redis.XAddArgs{Stream: outbox, Values: []string{"rid", "9-1", "user", "5"}})
	rdb.XAdd(ctx, &redis.XAddArgs{Stream: outbox, Values: []string{"rid", "9-2", "user", "5"}})
	raw, err := reconcileSnapshot.Run(ctx, rdb, []string{tpl, outbox, prefix + "9-1"}, 0, 0, 10, prefix).Slice()
	if err != nil {
		t.Fatal(err)
	}
	entries := raw[4].([]any)
	if entries[3] != int64(0) || entries[7] != int64(-1) {
		t.Fatalf("owed of a declared absent key and of an undeclared one = %v, %v; want 0, -1", entries[3], entries[7])
	}
}
