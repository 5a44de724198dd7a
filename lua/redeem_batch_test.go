package lua

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"coupond/testutil"
)

func TestRedeemArgumentErrors(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 19, activeTpl(10, 2))
	good := redeemKeys(19, 1, "req", "rd")
	bad := []struct {
		name string
		k    RedeemKeys
		a    func(*RedeemArgs)
	}{
		{"no redemption id", good, func(a *RedeemArgs) { a.RedemptionID = "" }},
		{"request key without TTL", good, func(a *RedeemArgs) { a.RequestTTL = 0 }},
		{"rate limit without window", good, func(a *RedeemArgs) { a.RateLimit = 3 }},
		{"negative rate limit", good, func(a *RedeemArgs) { a.RateLimit = -1 }},
		{"async without redemption TTL", good, func(a *RedeemArgs) { a.RedemptionTTL = 0 }},
		{"async without outbox key", RedeemKeys{Template: good.Template, Claims: good.Claims, Redemption: good.Redemption}, func(*RedeemArgs) {}},
		{"no claims key", RedeemKeys{Template: good.Template}, func(*RedeemArgs) {}},
	}
	for _, c := range bad {
		a := asyncArgs(1, "rd")
		c.a(&a)
		if _, err := Redeem(ctx, rdb, c.k, a); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if s := hgetInt(t, rdb, good.Template, "stock"); s != 10 {
		t.Errorf("stock = %d after refused calls, want 10", s)
	}
}

// TestRedeemScriptAsTheBenchmarkLoadsIt loads redeem.lua as bench/run.sh does (SCRIPT LOAD of the
// file, its SHA-1 checked) and makes the benchmark's raw call.
func TestRedeemScriptAsTheBenchmarkLoadsIt(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	src, err := os.ReadFile("redeem.lua")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha1.Sum(src)
	sha, err := rdb.ScriptLoad(ctx, string(src)).Result()
	if err != nil || sha != hex.EncodeToString(sum[:]) || sha != redeem.Hash() {
		t.Fatalf("SCRIPT LOAD = %s, %v; want the file's SHA-1, the embedded script's", sha, err)
	}
	// The raw call the benchmark makes: EVALSHA with 6 keys and 8 arguments.
	putTemplate(t, rdb, 20, activeTpl(1, 1))
	k := redeemKeys(20, 1, "r", "rd")
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	got, err := rdb.EvalSha(ctx, sha, []string{k.Template, k.Claims, k.Outbox, k.Request, k.Redemption, k.Rate},
		"1", "rd", now, "60", "0", "0", "1", "60").Slice()
	if err != nil || len(got) != 7 || fmt.Sprint(got[:4]) != "[0 1 rd 0]" || got[4] == "" || got[5] != int64(1) || got[6] != int64(0) {
		t.Errorf("EVALSHA = %v, %v; want [0 1 rd 0 <entry id> 1 0]", got, err)
	}
}

func TestRedeemCodeString(t *testing.T) {
	want := []string{"OK", "OUT_OF_STOCK", "LIMIT_REACHED", "NOT_STARTED", "ENDED", "RATE_LIMITED", "CACHE_MISSING"}
	for i, w := range want {
		if got := RedeemCode(i).String(); got != w {
			t.Errorf("RedeemCode(%d) = %q, want %q", i, got, w)
		}
	}
	if got := RedeemCode(9).String(); got != "RedeemCode(9)" {
		t.Errorf("RedeemCode(9) = %q", got)
	}
}

func TestRedeemBatchRunsEachClaimAsRedeemWould(t *testing.T) {
	rdb := testutil.Redis(t, "lua")
	ctx := context.Background()
	const tid = 77
	putTemplate(t, rdb, tid, activeTpl(30, 1))
	// Redis forgot the script: the batch loads it and sends the refused calls again.
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	var calls []RedeemCall
	for u := int64(1); u <= 40; u++ {
		rid := "rd-" + strconv.FormatInt(u, 10)
		calls = append(calls, RedeemCall{Keys: redeemKeys(tid, u, "", rid), Args: asyncArgs(u, rid)})
	}
	calls = append(calls, RedeemCall{Keys: redeemKeys(tid, 1, "", "rd-again"), Args: asyncArgs(1, "rd-again")})
	calls = append(calls, RedeemCall{Keys: redeemKeys(tid, 99, "", ""), Args: RedeemArgs{UserID: 99}}) // invalid
	results, errs := RedeemBatch(ctx, rdb, calls)
	var ok, outOfStock, limited int
	for i, res := range results[:41] {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		switch res.Code {
		case RedeemOK:
			ok++
		case RedeemOutOfStock:
			outOfStock++
		case RedeemLimitReached:
			limited++
		}
	}
	if ok != 30 || outOfStock+limited != 11 || errs[41] == nil {
		t.Fatalf("ok %d, out of stock %d, limited %d, invalid call error %v; want 30, 11 refused, an error", ok, outOfStock, limited, errs[41])
	}
	if got := hgetInt(t, rdb, redeemKeys(tid, 0, "", "").Template, "stock"); got != 0 {
		t.Fatalf("stock = %d, want 0", got)
	}
	if n, _ := rdb.XLen(ctx, redeemKeys(tid, 0, "", "").Outbox).Result(); n != 30 {
		t.Fatalf("outbox length = %d, want 30", n)
	}
}
