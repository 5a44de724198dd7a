package reconcile_test

import (
	"testing"

	"coupond/coupon/keys"
	"coupond/coupon/reconcile"
	"coupond/testutil/stack"
)

// With more claims in the outbox than MaxOutbox, a check does not read the Redis equation and
// says so (RedisChecked false): a Redis drift goes unseen that time. With room, it is read and
// the drift reported.
func TestRedisCheckedIsFalseWhenTheOutboxIsBusy(t *testing.T) {
	e := newEnv(t, "redis_checked", stack.Options{})
	tpl := e.sold(t) // two claims pending in the outbox
	if rep := e.check(t, tpl.ID); !rep.RedisChecked() {
		t.Fatalf("an outbox of 2 (limit 5000): RedisChecked false: %+v", rep)
	}
	e.Redis.HIncrBy(e.Ctx, keys.Template(tpl.ID), "stock", 3)
	busy := reconcile.New(e.DB, e.Redis, reconcile.Config{MaxOutbox: 1})
	rep, err := busy.Check(e.Ctx, stack.Merchant, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rep.RedisChecked() || !rep.Balanced || rep.Skipped == "" {
		t.Errorf("outbox of 2 over a limit of 1: RedisChecked %v, balanced %v, skipped %q", rep.RedisChecked(), rep.Balanced, rep.Skipped)
	}
	if rep := e.check(t, tpl.ID); !rep.RedisChecked() || rep.Balanced {
		t.Errorf("with room: RedisChecked %v, balanced %v (drift %v)", rep.RedisChecked(), rep.Balanced, rep.Drift)
	}
}
