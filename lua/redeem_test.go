package lua

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

// The tests build keys by hand in the format of package coupon/keys (which this package must not
// import), in the namespace ns.

func redeemKeys(tid, user int64, requestID, redemptionID string) RedeemKeys {
	tag := ns + "{t" + strconv.FormatInt(tid, 10) + "}"
	u := strconv.FormatInt(user, 10)
	k := RedeemKeys{
		Template:   tag + ":tpl",
		Claims:     tag + ":u:" + u,
		Outbox:     tag + ":outbox",
		Redemption: tag + ":rd:" + redemptionID,
		Rate:       tag + ":rl:" + u,
	}
	if requestID != "" {
		k.Request = tag + ":req:" + u + ":" + requestID
	}
	return k
}

// tpl describes a cached template; putTemplate writes its complete hash.
type tpl struct {
	stock, limit int
	status       string
	start, end   time.Time
}

func activeTpl(stock, limit int) tpl {
	now := time.Now()
	return tpl{stock: stock, limit: limit, status: "ACTIVE", start: now.Add(-time.Hour), end: now.Add(2 * time.Hour)}
}

func putTemplate(t *testing.T, rdb redis.UniversalClient, tid int64, p tpl) {
	t.Helper()
	key := redeemKeys(tid, 0, "", "").Template
	err := rdb.HSet(context.Background(), key,
		"stock", p.stock, "total", p.stock, "status", p.status,
		"start", p.start.UnixMilli(), "end", p.end.UnixMilli(), "limit", p.limit,
		"shop", "1", "ver", "1", "data", "{}").Err()
	if err != nil {
		t.Fatal(err)
	}
}

func asyncArgs(user int64, rid string) RedeemArgs {
	return RedeemArgs{
		UserID: user, RedemptionID: rid, Now: time.Now(), RequestTTL: 10 * time.Minute,
		Outbox: true, RedemptionTTL: time.Hour,
	}
}

func mustRedeem(t *testing.T, rdb redis.UniversalClient, k RedeemKeys, a RedeemArgs) RedeemResult {
	t.Helper()
	res, err := Redeem(context.Background(), rdb, k, a)
	if err != nil {
		t.Fatalf("Redeem: %v", err)
	}
	return res
}

func hgetInt(t *testing.T, rdb redis.UniversalClient, key, field string) int {
	t.Helper()
	v, err := rdb.HGet(context.Background(), key, field).Int()
	if err == redis.Nil {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRedeemAccept(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	p := activeTpl(10, 2)
	putTemplate(t, rdb, 42, p)
	k := redeemKeys(42, 7, "req-1", "rd-1")
	a := asyncArgs(7, "rd-1")
	a.RateLimit, a.RateWindow, a.RequestID = 5, time.Minute, "req-1"

	res := mustRedeem(t, rdb, k, a)
	entries := rdb.XRange(ctx, k.Outbox, "-", "+").Val()
	if len(entries) != 1 || res.EntryID != entries[0].ID {
		t.Fatalf("entry id %q, outbox %v: want the id of the one entry", res.EntryID, entries)
	}
	if e, err := ParseOutboxEntry(entries[0]); err != nil || e.RequestID != "req-1" || e.RedemptionID != "rd-1" || e.UserID != 7 {
		t.Fatalf("outbox entry %+v, %v; want rd-1 of user 7 with its requestId", e, err)
	}
	if want := (RedeemResult{Code: RedeemOK, ReceiveCount: 1, RedemptionID: "rd-1", EntryID: entries[0].ID, Counted: 1}); res != want {
		t.Fatalf("Redeem = %+v, want %+v", res, want)
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 9 {
		t.Errorf("stock = %d, want 9", s)
	}
	if n, seq := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Claims, "seq"); n != 1 || seq != 1 {
		t.Errorf("claims n=%d seq=%d, want 1 1", n, seq)
	}
	// The claim hash expires at the template's end, in seconds (not 1000× later, as if given milliseconds).
	wantTTL := time.Until(p.end)
	if ttl := rdb.TTL(ctx, k.Claims).Val(); ttl < wantTTL-5*time.Second || ttl > wantTTL+5*time.Second {
		t.Errorf("claims TTL = %v, want ≈ %v", ttl, wantTTL)
	}
	if at := rdb.ExpireTime(ctx, k.Claims).Val(); at != time.Duration((p.end.UnixMilli()+999)/1000)*time.Second {
		t.Errorf("claims expire time = %v, want unix %d", at, (p.end.UnixMilli()+999)/1000)
	}
	msgs := rdb.XRange(ctx, k.Outbox, "-", "+").Val()
	if len(msgs) != 1 {
		t.Fatalf("outbox has %d entries, want 1", len(msgs))
	}
	want := map[string]any{"rid": "rd-1", "user": "7", "rc": "1", "ts": strconv.FormatInt(a.Now.UnixMilli(), 10), "n": "1", "e": "0", "req": "req-1"}
	if fmt.Sprint(msgs[0].Values) != fmt.Sprint(want) {
		t.Errorf("outbox entry = %v, want %v", msgs[0].Values, want)
	}
	if u := rdb.Get(ctx, k.Redemption).Val(); u != "7" {
		t.Errorf("redemption key = %q, want 7", u)
	}
	if ttl := rdb.TTL(ctx, k.Redemption).Val(); ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("redemption key TTL = %v, want ≈ 1h", ttl)
	}
	if ttl := rdb.TTL(ctx, k.Request).Val(); ttl <= 9*time.Minute || ttl > 10*time.Minute {
		t.Errorf("request key TTL = %v, want ≈ 10m", ttl)
	}
	if ttl := rdb.PTTL(ctx, k.Rate).Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("rate key TTL = %v, want ≤ 1m", ttl)
	}

	// A second claim (another request) gets the next receive_count; the third hits the limit.
	res = mustRedeem(t, rdb, redeemKeys(42, 7, "req-2", "rd-2"), asyncArgs(7, "rd-2"))
	if res.Code != RedeemOK || res.ReceiveCount != 2 || res.RedemptionID != "rd-2" {
		t.Errorf("second Redeem = %+v, want OK rc 2 rd-2", res)
	}
	res = mustRedeem(t, rdb, redeemKeys(42, 7, "req-3", "rd-3"), asyncArgs(7, "rd-3"))
	if res.Code != RedeemLimitReached {
		t.Errorf("third Redeem = %+v, want LIMIT_REACHED", res)
	}
}

func TestRedeemRefusalsDeductNothing(t *testing.T) {
	now := time.Now()
	preheld := func(n int) func(*testing.T, redis.UniversalClient, RedeemKeys) {
		return func(t *testing.T, rdb redis.UniversalClient, k RedeemKeys) {
			rdb.HSet(context.Background(), k.Claims, "n", n, "seq", n)
		}
	}
	cases := []struct {
		name  string
		tpl   tpl
		setup func(*testing.T, redis.UniversalClient, RedeemKeys)
		want  RedeemCode
	}{
		{"out of stock", activeTpl(0, 2), nil, RedeemOutOfStock},
		{"negative stock", activeTpl(-3, 2), nil, RedeemOutOfStock},
		{"limit reached", activeTpl(10, 2), preheld(2), RedeemLimitReached},
		{"not started", tpl{10, 2, "ACTIVE", now.Add(time.Hour), now.Add(2 * time.Hour)}, nil, RedeemNotStarted},
		{"window closed", tpl{10, 2, "ACTIVE", now.Add(-2 * time.Hour), now.Add(-time.Millisecond)}, nil, RedeemEnded},
		{"terminated", tpl{10, 2, "ENDED", now.Add(-time.Hour), now.Add(time.Hour)}, nil, RedeemEnded},
		{"terminated before start", tpl{10, 2, "ENDED", now.Add(time.Hour), now.Add(2 * time.Hour)}, nil, RedeemEnded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, rdb := context.Background(), testutil.Redis(t, "lua")
			putTemplate(t, rdb, 5, c.tpl)
			k := redeemKeys(5, 9, "req", "rd-x")
			if c.setup != nil {
				c.setup(t, rdb, k)
			}
			nBefore, seqBefore := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Claims, "seq")
			a := asyncArgs(9, "rd-x")
			a.Now = now

			res := mustRedeem(t, rdb, k, a)
			if want := (RedeemResult{Code: c.want}); res != want {
				t.Fatalf("Redeem = %+v, want %+v", res, want)
			}
			if s := hgetInt(t, rdb, k.Template, "stock"); s != c.tpl.stock {
				t.Errorf("stock = %d, want %d", s, c.tpl.stock)
			}
			if n, seq := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Claims, "seq"); n != nBefore || seq != seqBefore {
				t.Errorf("claims n=%d seq=%d, want %d %d", n, seq, nBefore, seqBefore)
			}
			if l := rdb.XLen(ctx, k.Outbox).Val(); l != 0 {
				t.Errorf("outbox length = %d, want 0", l)
			}
			if rdb.Exists(ctx, k.Redemption).Val() != 0 {
				t.Error("redemption key set for a refusal")
			}
			// The refusal is stored: the same request id replays it, even once it would pass.
			putTemplate(t, rdb, 5, activeTpl(10, 5))
			again := mustRedeem(t, rdb, k, asyncArgs(9, "rd-y"))
			if want := (RedeemResult{Code: c.want, Replayed: true}); again != want {
				t.Errorf("replay = %+v, want %+v", again, want)
			}
			if s := hgetInt(t, rdb, k.Template, "stock"); s != 10 {
				t.Errorf("replay changed stock to %d", s)
			}
		})
	}
}

func TestRedeemCacheMissing(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	k := redeemKeys(11, 3, "req", "rd-1")
	a := asyncArgs(3, "rd-1")
	a.RateLimit, a.RateWindow = 1, time.Minute

	// No hash at all: a code, not a Lua error, and no partial hash created.
	for i := 0; i < 2; i++ { // twice: the rate limit (1) must not count cache misses
		res := mustRedeem(t, rdb, k, a)
		if want := (RedeemResult{Code: RedeemCacheMissing}); res != want {
			t.Fatalf("Redeem on a missing hash = %+v, want %+v", res, want)
		}
	}
	if n := rdb.Exists(ctx, k.Template, k.Claims, k.Outbox, k.Request, k.Redemption, k.Rate).Val(); n != 0 {
		t.Errorf("%d keys exist after CACHE_MISSING, want 0", n)
	}

	// A partial hash (no "data", e.g. left by an HINCRBY on an expired hash): same code, the
	// hash is left exactly as it was.
	rdb.HSet(ctx, k.Template, "stock", 5)
	res := mustRedeem(t, rdb, k, a)
	if res.Code != RedeemCacheMissing {
		t.Fatalf("Redeem on a partial hash = %+v, want CACHE_MISSING", res)
	}
	if got := rdb.HGetAll(ctx, k.Template).Val(); len(got) != 1 || got["stock"] != "5" {
		t.Errorf("partial hash changed to %v", got)
	}
	if rdb.Exists(ctx, k.Request).Val() != 0 {
		t.Error("CACHE_MISSING was stored under the request key")
	}

	// A hash with "data" but an unreadable number is treated as incomplete, not a Lua error.
	putTemplate(t, rdb, 11, activeTpl(5, 2))
	rdb.HDel(ctx, k.Template, "end")
	if res := mustRedeem(t, rdb, k, a); res.Code != RedeemCacheMissing {
		t.Errorf("Redeem on a hash without end = %+v, want CACHE_MISSING", res)
	}

	// After the reload the same request id succeeds.
	putTemplate(t, rdb, 11, activeTpl(5, 2))
	if res := mustRedeem(t, rdb, k, a); res.Code != RedeemOK || res.ReceiveCount != 1 {
		t.Errorf("Redeem after reload = %+v, want OK rc 1", res)
	}
}

func TestRedeemWithoutOutboxJournalsNothing(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 15, activeTpl(10, 2))
	k := redeemKeys(15, 1, "req", "rd-1")
	a := RedeemArgs{UserID: 1, RedemptionID: "rd-1", Now: time.Now(), RequestTTL: time.Minute}
	res := mustRedeem(t, rdb, k, a)
	if res != (RedeemResult{Code: RedeemOK, ReceiveCount: 1, RedemptionID: "rd-1", Counted: 1}) {
		t.Fatalf("Redeem = %+v", res)
	}
	if rdb.Exists(ctx, k.Outbox).Val() != 0 {
		t.Error("a call without the outbox wrote an outbox entry")
	}
	if rdb.Exists(ctx, k.Redemption).Val() != 0 {
		t.Error("redemption key set without RedemptionTTL")
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 9 {
		t.Errorf("stock = %d, want 9", s)
	}

	// Without the outbox, with a redemption key, and with the unused keys left empty.
	k2 := RedeemKeys{Template: k.Template, Claims: k.Claims, Redemption: ns + "{t15}:rd:rd-2"}
	a.RedemptionID, a.RedemptionTTL = "rd-2", time.Minute
	if res := mustRedeem(t, rdb, k2, a); res.Code != RedeemOK || res.ReceiveCount != 2 {
		t.Fatalf("Redeem = %+v", res)
	}
	if rdb.Get(ctx, k2.Redemption).Val() != "1" || rdb.Exists(ctx, k.Outbox).Val() != 0 {
		t.Error("no outbox, RedemptionTTL set: want a redemption key and no outbox")
	}
}

func TestRedeemConcurrentClaimsBalance(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	const (
		tid        = 77
		stock      = 100
		limit      = 2
		users      = 300
		goroutines = 50
		perG       = 40
	)
	putTemplate(t, rdb, tid, activeTpl(stock, limit))

	var (
		mu     sync.Mutex
		ok     int
		byUser = map[int64][]int{}
		codes  = map[RedeemCode]int{}
		seq    atomic.Int64
		wg     sync.WaitGroup
	)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perG; i++ {
				user := rand.Int64N(users) + 1
				rid := "rd-" + strconv.FormatInt(seq.Add(1), 10)
				res, err := Redeem(ctx, rdb, redeemKeys(tid, user, rid, rid), asyncArgs(user, rid))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				codes[res.Code]++
				if res.Code == RedeemOK {
					ok++
					byUser[user] = append(byUser[user], res.ReceiveCount)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	if ok != stock {
		t.Errorf("%d claims accepted, want %d (codes %v)", ok, stock, codes)
	}
	if codes[RedeemOK]+codes[RedeemOutOfStock]+codes[RedeemLimitReached] != goroutines*perG {
		t.Errorf("unexpected codes: %v", codes)
	}
	if s := hgetInt(t, rdb, ns+"{t77}:tpl", "stock"); s != 0 {
		t.Errorf("stock = %d, want 0", s)
	}
	if l := rdb.XLen(ctx, ns+"{t77}:outbox").Val(); l != stock {
		t.Errorf("outbox length = %d, want %d", l, stock)
	}
	total := 0
	for u := int64(1); u <= users; u++ {
		n := hgetInt(t, rdb, redeemKeys(tid, u, "", "").Claims, "n")
		total += n
		if n > limit {
			t.Errorf("user %d holds %d, limit %d", u, n, limit)
		}
		if n != len(byUser[u]) {
			t.Errorf("user %d: n = %d, accepted %d", u, n, len(byUser[u]))
		}
	}
	if total != stock {
		t.Errorf("sum of n = %d, want %d", total, stock)
	}
	for u, rcs := range byUser {
		seen := map[int]bool{}
		for _, rc := range rcs {
			if rc < 1 || rc > len(rcs) || seen[rc] {
				t.Errorf("user %d: receive counts %v are not distinct and 1-based", u, rcs)
				break
			}
			seen[rc] = true
		}
	}
	// The outbox agrees with the answers: one entry per accepted redemption id.
	rids := map[string]bool{}
	for _, m := range rdb.XRange(ctx, ns+"{t77}:outbox", "-", "+").Val() {
		rid, _ := m.Values["rid"].(string)
		if rids[rid] {
			t.Errorf("redemption %s twice in the outbox", rid)
		}
		rids[rid] = true
	}
}

// releaseKeys are the release keys of the claim made with k.

// An accepted claim carries the template hash's epoch (a reconciliation's snapshot raised it) in
// its answer and its outbox entry; a refused one carries none.
func TestRedeemCarriesTheEpoch(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 78, activeTpl(1, 1))
	k := redeemKeys(78, 7, "", "rd-e")
	rdb.HSet(ctx, k.Template, "epoch", 5)
	res := mustRedeem(t, rdb, k, asyncArgs(7, "rd-e"))
	if res.Code != RedeemOK || res.Epoch != 5 {
		t.Fatalf("Redeem = %+v, want OK with epoch 5", res)
	}
	msgs := rdb.XRange(ctx, k.Outbox, "-", "+").Val()
	if len(msgs) != 1 {
		t.Fatalf("outbox has %d entries, want 1", len(msgs))
	}
	if e, err := ParseOutboxEntry(msgs[0]); err != nil || e.Epoch != 5 {
		t.Fatalf("outbox entry = %+v, %v; want epoch 5", e, err)
	}
	if res := mustRedeem(t, rdb, redeemKeys(78, 8, "", "rd-f"), asyncArgs(8, "rd-f")); res.Code != RedeemOutOfStock || res.Epoch != 0 {
		t.Fatalf("refused Redeem = %+v, want OUT_OF_STOCK with epoch 0", res)
	}
}
