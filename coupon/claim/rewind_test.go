package claim_test

import (
	"testing"

	promtest "github.com/prometheus/client_golang/prometheus/testutil"

	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/coupon/keys"
	"coupond/lua"
)

// Redis restarts from an AOF older than a batch the persister has read and is committing: the
// batch's outbox entries, redemption keys, stock deductions and counter increments are gone while
// MySQL commits the claims. The acknowledgement notices, so the hash is rebuilt from MySQL and the
// counters are raised: Redis sells no unit twice and lets no user over the limit.
func TestBatchRedisLostInFlightIsRepaired(t *testing.T) {
	e := newRedeemEnv(t, "lost_in_flight", claim.Config{})
	tpl := e.Template(t, 10, 1, nil)
	users := []int64{51, 52, 53}
	rids := e.claimAll(t, tpl.ID, users...)
	before := promtest.ToFloat64(claim.RewoundTotal)
	e.persister.OnStep(func(step string) {
		if step != "committed" {
			return
		}
		e.persister.OnStep(nil)
		msgs, err := e.Redis.XRange(e.Ctx, keys.Outbox(tpl.ID), "-", "+").Result()
		if err != nil {
			t.Error(err)
			return
		}
		for _, m := range msgs { // the restart rewinds every write of the claim script, and the read that delivered it
			entry, err := lua.ParseOutboxEntry(m)
			if err != nil {
				t.Error(err)
				return
			}
			e.Redis.XAck(e.Ctx, keys.Outbox(tpl.ID), claim.OutboxGroup, m.ID)
			e.Redis.XDel(e.Ctx, keys.Outbox(tpl.ID), m.ID)
			e.Redis.Del(e.Ctx, keys.Redemption(tpl.ID, entry.RedemptionID), keys.ClaimCounter(tpl.ID, entry.UserID))
			e.Redis.HIncrBy(e.Ctx, keys.Template(tpl.ID), "stock", 1)
		}
	})
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	e.checkPersistedOnce(t, tpl, users, rids)
	if _, err := e.Cache.Get(e.Ctx, tpl.ID); err != nil { // the dropped hash is rebuilt
		t.Fatal(err)
	}
	booksAfterSettling(t, e.Stack, tpl, users)
	if got := promtest.ToFloat64(claim.RewoundTotal) - before; got != 3 {
		t.Fatalf("rewound claims counted: %v, want 3", got)
	}
	if _, err := e.redeemer.Redeem(e.Ctx, 51, tpl.ID, ""); codeOf(err) != coupon.CodeLimitReached {
		t.Fatalf("repeated claim: %v; want LIMIT_REACHED from Redis", err)
	}
}

// Claims Redis accepted on a rewound hash outnumber what MySQL can still fill, and a rebuild runs
// while they wait in the outbox: the rebuilt stock is below 0 (not clamped to 0), so when they fail
// for the limit and give their units back, Redis ends at MySQL's stock, 0, and sells no phantom
// unit.
func TestOverAcceptedClaimsSettleToTheDatabaseStock(t *testing.T) {
	e := newRedeemEnv(t, "over_accepted", claim.Config{})
	tpl := e.Template(t, 3, 1, nil)
	users := []int64{61, 62, 63}
	e.claimAll(t, tpl.ID, users...)
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	// A restart rewinds the hash to before two of the claims: 2 units and 2 users' counters back.
	e.Redis.HSet(e.Ctx, keys.Template(tpl.ID), "stock", 2)
	e.Redis.Del(e.Ctx, keys.ClaimCounter(tpl.ID, 61), keys.ClaimCounter(tpl.ID, 62))
	again := e.claimAll(t, tpl.ID, 61, 62)
	if err := e.Cache.Invalidate(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Cache.Get(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if got := e.redisStock(t, tpl.ID); got != -2 {
		t.Fatalf("rebuilt stock = %d, want -2 (0 in MySQL, 2 claims it cannot fill in the outbox)", got)
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	for i, u := range []int64{61, 62} {
		red, err := e.redeemer.Redemption(e.Ctx, u, again[i])
		if err != nil || red.Status != claim.RedemptionFailed || *red.FailureReason != claim.ReasonLimitReached {
			t.Fatalf("repeated claim of user %d = %+v, %v; want FAILED (limit)", u, red, err)
		}
	}
	booksAfterSettling(t, e.Stack, tpl, users)
	if _, err := e.redeemer.Redeem(e.Ctx, 64, tpl.ID, ""); codeOf(err) != coupon.CodeOutOfStock {
		t.Fatalf("a new user's claim: %v; want OUT_OF_STOCK", err)
	}
}

// A restart rewinds a user's counter below a coupon MySQL holds (limit 2: one held, counter 0),
// and the user claims again: that claim is persisted, and its outbox entry's counter (1) is below the
// coupons MySQL then holds (2), so the persister raises the counter: the user's third claim is
// refused by Redis, not accepted and failed.
func TestCounterRewoundBelowHeldCouponsIsRaised(t *testing.T) {
	e := newRedeemEnv(t, "counter_behind", claim.Config{})
	tpl := e.Template(t, 10, 2, nil)
	e.claimAll(t, tpl.ID, 71)
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	e.Redis.Del(e.Ctx, keys.ClaimCounter(tpl.ID, 71))
	e.Redis.HIncrBy(e.Ctx, keys.Template(tpl.ID), "stock", 1)
	e.claimAll(t, tpl.ID, 71)
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.Cache.Invalidate(e.Ctx, tpl.ID); err != nil { // the rewound stock is for the rebuild to fix
		t.Fatal(err)
	}
	if _, err := e.Cache.Get(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	booksAfterSettling(t, e.Stack, tpl, []int64{71})
	if _, err := e.redeemer.Redeem(e.Ctx, 71, tpl.ID, ""); codeOf(err) != coupon.CodeLimitReached {
		t.Fatalf("third claim: %v; want LIMIT_REACHED from Redis", err)
	}
}
