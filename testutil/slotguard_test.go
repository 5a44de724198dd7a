package testutil

import (
	"context"
	"strings"
	"testing"

	"coupond/store"

	"github.com/redis/go-redis/v9"
)

func TestSlotMatchesRedisCluster(t *testing.T) {
	for key, want := range map[string]int{
		"foo":       12182, // CLUSTER KEYSLOT foo
		"123456789": 12739, // CRC16/XMODEM check value 0x31C3
		"{}a":       10875, // an empty hash tag: the whole key
		"{}b":       6680,
	} {
		if got := Slot(key); got != want {
			t.Errorf("Slot(%q) = %d, want %d", key, got, want)
		}
	}
	if Slot("{t7}:tpl") != Slot("t7") || Slot("ns_{t7}:u:5") != Slot("{t7}:outbox") {
		t.Error("a hash tag does not decide the slot")
	}
}

// The guard refuses (and records) a cross-slot EVAL, DEL and MULTI/EXEC before they reach Redis,
// and lets same-slot ones through.
func TestSlotGuardCatchesCrossSlot(t *testing.T) {
	ctx := context.Background()
	rdb := store.OpenRedis(RedisAddr(), "", 0)
	defer rdb.Close()
	g, err := NewSlotGuard(ctx, rdb)
	if err != nil {
		t.Fatal(err)
	}
	rdb.AddHook(g)
	ns := Namespace("slotguard")
	a, b, a2 := ns+"{t1}:x", ns+"{t2}:x", ns+"{t1}:y"
	if Slot(a) == Slot(b) {
		t.Fatal("the test's keys share a slot")
	}
	const script = "return #KEYS"
	if err := rdb.Eval(ctx, script, []string{a, b}).Err(); err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Errorf("cross-slot EVAL: err = %v, want the guard's CROSSSLOT", err)
	}
	if err := rdb.Del(ctx, a, b).Err(); err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Errorf("cross-slot DEL: err = %v, want the guard's CROSSSLOT", err)
	}
	pipe := rdb.TxPipeline()
	pipe.Set(ctx, a, 1, 0)
	pipe.Set(ctx, b, 1, 0)
	if _, err := pipe.Exec(ctx); err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Errorf("cross-slot MULTI/EXEC: err = %v, want the guard's CROSSSLOT", err)
	}
	if rdb.Exists(ctx, a).Val()+rdb.Exists(ctx, b).Val() != 0 {
		t.Error("a refused transaction reached Redis")
	}
	if v := g.Violations(); len(v) != 3 || !strings.Contains(v[0], "eval") || !strings.Contains(v[1], "del") {
		t.Errorf("violations = %q, want the EVAL, the DEL and the transaction", v)
	}
	if n, err := rdb.Eval(ctx, script, []string{a, a2}).Int(); err != nil || n != 2 {
		t.Errorf("same-slot EVAL = %d, %v", n, err)
	}
	if err := rdb.Del(ctx, a, a2).Err(); err != nil {
		t.Errorf("same-slot DEL: %v", err)
	}
	if err := rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{a, b, "0", "0"}, Count: 1, Block: -1}).Err(); err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Errorf("cross-slot XREAD: err = %v, want the guard's CROSSSLOT", err)
	}
	if len(g.Violations()) != 4 {
		t.Errorf("violations = %q", g.Violations())
	}
}
