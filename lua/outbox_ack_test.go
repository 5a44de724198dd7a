package lua

import (
	"context"
	"slices"
	"testing"
	"time"

	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

// OutboxAck deletes the acknowledged entries and reports exactly those that vanished together with
// their redemption key (a Redis rewound past the claim), not those deleted by another persister
// (key still there) nor entries without a claim.
func TestOutboxAckReportsEntriesLostWithTheirClaim(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	outbox, group := ns+"{t7}:outbox", "persist"
	var ids []string
	for range 3 {
		id, err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: outbox, Values: []string{"k", "v"}}).Result()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rdb.XGroupCreate(ctx, outbox, group, "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: "c", Streams: []string{outbox, ">"}, Block: -1}).Err(); err != nil {
		t.Fatal(err)
	}
	rd := []string{ns + "{t7}:rd:a", ns + "{t7}:rd:b", ns + "{t7}:rd:c"}
	rdb.Set(ctx, rd[0], 1, 0)
	rdb.Set(ctx, rd[1], 1, 0)
	rdb.XDel(ctx, outbox, ids[1], ids[2]) // b: another persister deleted it; c: lost with its key
	lost, err := OutboxAck(ctx, rdb, outbox, group, append(ids, "9-9"), append(rd, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lost, []int{2}) {
		t.Fatalf("lost = %v, want [2]", lost)
	}
	if n := rdb.XLen(ctx, outbox).Val(); n != 0 {
		t.Fatalf("outbox holds %d entries after the ack", n)
	}
	if p, err := rdb.XPending(ctx, outbox, group).Result(); err != nil || p.Count != 0 {
		t.Fatalf("pending = %+v, %v", p, err)
	}
}

// More entries than one script call takes go out in several calls; the positions of lost ones
// still index the caller's ids, and the common case (every entry still pending) deletes them all.
func TestOutboxAckInChunks(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	outbox, group := ns+"{t9}:outbox", "persist"
	n := 2*maxAckIDs + 500
	pipe := rdb.Pipeline()
	cmds := make([]*redis.StringCmd, n)
	for i := range n {
		cmds[i] = pipe.XAdd(ctx, &redis.XAddArgs{Stream: outbox, Values: []string{"k", "v"}})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	ids, rd := make([]string, n), make([]string, n)
	for i, c := range cmds {
		ids[i], rd[i] = c.Val(), ns+"{t9}:rd:"+c.Val()
		pipe.Set(ctx, rd[i], 1, time.Hour)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rdb.XGroupCreate(ctx, outbox, group, "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: "c", Streams: []string{outbox, ">"}, Count: int64(n), Block: -1}).Err(); err != nil {
		t.Fatal(err)
	}
	lostAt := maxAckIDs + 7 // in the second call
	// Redis rewound to before that claim: its entry, its place in the group and its key are gone.
	rdb.XAck(ctx, outbox, group, ids[lostAt])
	rdb.XDel(ctx, outbox, ids[lostAt])
	rdb.Del(ctx, rd[lostAt])
	lost, err := OutboxAck(ctx, rdb, outbox, group, ids, rd)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lost, []int{lostAt}) {
		t.Fatalf("lost = %v, want [%d]", lost, lostAt)
	}
	if l := rdb.XLen(ctx, outbox).Val(); l != 0 {
		t.Fatalf("outbox holds %d entries after the ack", l)
	}
	if p, err := rdb.XPending(ctx, outbox, group).Result(); err != nil || p.Count != 0 {
		t.Fatalf("pending = %+v, %v", p, err)
	}
}

// ClaimCounterRaise raises counters below their floor and leaves the others alone.
func TestClaimCounterRaiseNeverLowers(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	low, high, none := ns+"{t8}:u:1", ns+"{t8}:u:2", ns+"{t8}:u:3"
	rdb.HSet(ctx, low, "n", 1, "seq", 4)
	rdb.HSet(ctx, high, "n", 3)
	end := time.Now().Add(time.Hour)
	n, err := ClaimCounterRaise(ctx, rdb, []string{low, high, none}, []int{2, 2, 1}, end)
	if err != nil || n != 2 {
		t.Fatalf("raised %d, %v; want 2", n, err)
	}
	for k, want := range map[string]int{low: 2, high: 3, none: 1} {
		if got, _ := rdb.HGet(ctx, k, "n").Int(); got != want {
			t.Fatalf("%s n = %d, want %d", k, got, want)
		}
	}
	if seq, _ := rdb.HGet(ctx, low, "seq").Int(); seq != 4 {
		t.Fatalf("seq = %d, want 4 (untouched)", seq)
	}
	if ttl := rdb.TTL(ctx, none).Val(); ttl <= 0 || ttl > time.Hour {
		t.Fatalf("raised counter TTL = %v, want up to the template's end", ttl)
	}
}
