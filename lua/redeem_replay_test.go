package lua

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"coupond/testutil"
)

func TestRedeemReplay(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 12, activeTpl(10, 5))
	k := redeemKeys(12, 4, "req-a", "rd-1")
	first := mustRedeem(t, rdb, k, asyncArgs(4, "rd-1"))
	if first.Code != RedeemOK || first.ReceiveCount != 1 {
		t.Fatalf("first = %+v", first)
	}
	// The retry carries a new redemption id (the caller generates one per call); the answer is the
	// first one, and nothing more is deducted.
	k2 := redeemKeys(12, 4, "req-a", "rd-2")
	for i := 0; i < 3; i++ {
		again := mustRedeem(t, rdb, k2, asyncArgs(4, "rd-2"))
		want := first
		want.Replayed, want.EntryID, want.Counted = true, "", 0 // a replay appends and counts nothing
		if again != want {
			t.Fatalf("replay = %+v, want %+v", again, want)
		}
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 9 {
		t.Errorf("stock = %d, want 9", s)
	}
	if n := hgetInt(t, rdb, k.Claims, "n"); n != 1 {
		t.Errorf("n = %d, want 1", n)
	}
	if l := rdb.XLen(ctx, k.Outbox).Val(); l != 1 {
		t.Errorf("outbox length = %d, want 1", l)
	}
	if rdb.Exists(ctx, k2.Redemption).Val() != 0 {
		t.Error("a replay set a redemption key")
	}

	// 20 concurrent calls with one request id: one claim, 20 identical answers.
	k3 := redeemKeys(12, 5, "req-c", "")
	var wg sync.WaitGroup
	answers := make([]RedeemResult, 20)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rid := "c-" + strconv.Itoa(i)
			kk := k3
			kk.Redemption = ns + "{t12}:rd:" + rid
			res, err := Redeem(ctx, rdb, kk, asyncArgs(5, rid))
			if err != nil {
				t.Error(err)
			}
			answers[i] = res
		}()
	}
	wg.Wait()
	replays := 0
	for _, r := range answers {
		if r.Replayed {
			replays++
		}
		r.Replayed, r.EntryID, r.Counted = false, "", 0 // the one first answer carries its entry id and count
		if r != (RedeemResult{Code: RedeemOK, ReceiveCount: 1, RedemptionID: answers[0].RedemptionID}) {
			t.Errorf("concurrent answer %+v differs", r)
		}
	}
	if replays != 19 {
		t.Errorf("%d replayed answers, want 19", replays)
	}
	if n := hgetInt(t, rdb, k3.Claims, "n"); n != 1 {
		t.Errorf("n = %d after 20 calls with one request id, want 1", n)
	}
}

func TestRedeemWithoutRequestID(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 13, activeTpl(10, 5))
	for i := 1; i <= 2; i++ {
		rid := "rd-" + strconv.Itoa(i)
		res := mustRedeem(t, rdb, redeemKeys(13, 6, "", rid), asyncArgs(6, rid))
		if res.Code != RedeemOK || res.ReceiveCount != i || res.Replayed {
			t.Errorf("claim %d = %+v", i, res)
		}
	}
	if keys := keysMatching(t, rdb, ns+"{t13}:req:*"); len(keys) != 0 {
		t.Errorf("request keys stored without a request id: %v", keys)
	}
	if got := rdb.HGetAll(ctx, ns+"{t13}:tpl").Val(); got["stock"] != "8" || got["data"] != "{}" {
		t.Errorf("template hash = %v", got)
	}
}

func TestRedeemRateLimitedIsNotStored(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 14, activeTpl(10, 5))
	const window = 300 * time.Millisecond
	args := func(rid string) RedeemArgs {
		a := asyncArgs(8, rid)
		a.RateLimit, a.RateWindow = 2, window
		return a
	}
	for i := 1; i <= 2; i++ {
		rid := "rd-" + strconv.Itoa(i)
		if res := mustRedeem(t, rdb, redeemKeys(14, 8, rid, rid), args(rid)); res.Code != RedeemOK {
			t.Fatalf("attempt %d = %+v, want OK", i, res)
		}
	}
	k := redeemKeys(14, 8, "req-3", "rd-3")
	if res := mustRedeem(t, rdb, k, args("rd-3")); res != (RedeemResult{Code: RedeemRateLimited}) {
		t.Fatalf("third attempt = %+v, want RATE_LIMITED", res)
	}
	if rdb.Exists(ctx, k.Request).Val() != 0 {
		t.Error("RATE_LIMITED was stored under the request key")
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 8 {
		t.Errorf("stock = %d, want 8", s)
	}
	if l := rdb.XLen(ctx, k.Outbox).Val(); l != 2 {
		t.Errorf("outbox length = %d, want 2", l)
	}
	// Another user is not limited by user 8's attempts.
	if res := mustRedeem(t, rdb, redeemKeys(14, 9, "x", "rd-9"), func() RedeemArgs { a := args("rd-9"); a.UserID = 9; return a }()); res.Code != RedeemOK {
		t.Errorf("other user = %+v, want OK", res)
	}

	time.Sleep(window + 100*time.Millisecond)
	a := args("rd-3")
	a.Now = time.Now()
	if res := mustRedeem(t, rdb, k, a); res.Code != RedeemOK || res.ReceiveCount != 3 || res.Replayed {
		t.Errorf("retry after the window = %+v, want OK rc 3", res)
	}
}

// TestRedeemBorrowingKeepsOutOfStockUnstored: a stock shard's claim that finds its shard empty is
// refused without storing the refusal (its caller borrows and calls again with the same request
// key); the call after the borrow is accepted, and a last OUT_OF_STOCK without Borrowing is stored.
func TestRedeemBorrowingKeepsOutOfStockUnstored(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 13, activeTpl(0, 5))
	k := redeemKeys(13, 4, "req-b", "rd-b1")
	a := asyncArgs(4, "rd-b1")
	a.Borrowing = true
	if res := mustRedeem(t, rdb, k, a); res.Code != RedeemOutOfStock {
		t.Fatalf("empty shard: %+v", res)
	}
	if rdb.Exists(ctx, k.Request).Val() != 0 {
		t.Fatal("OUT_OF_STOCK stored while borrowing")
	}
	rdb.HSet(ctx, k.Template, "stock", 1) // the borrow
	if res := mustRedeem(t, rdb, k, a); res.Code != RedeemOK || res.Replayed {
		t.Fatalf("after the borrow: %+v", res)
	}
	k2 := redeemKeys(13, 5, "req-c", "rd-b2")
	a2 := asyncArgs(5, "rd-b2")
	if res := mustRedeem(t, rdb, k2, a2); res.Code != RedeemOutOfStock || rdb.Exists(ctx, k2.Request).Val() != 1 {
		t.Fatalf("out of stock everywhere: %+v, stored %d", res, rdb.Exists(ctx, k2.Request).Val())
	}
}
