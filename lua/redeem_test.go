package lua

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

// The tests build keys by hand in the format of package coupon (which this package must not import).

func redeemKeys(tid, user int64, requestID, redemptionID string) RedeemKeys {
	tag := "{t" + strconv.FormatInt(tid, 10) + "}"
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

func putTemplate(t *testing.T, rdb *redis.Client, tid int64, p tpl) {
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

func mustRedeem(t *testing.T, rdb *redis.Client, k RedeemKeys, a RedeemArgs) RedeemResult {
	t.Helper()
	res, err := Redeem(context.Background(), rdb, k, a)
	if err != nil {
		t.Fatalf("Redeem: %v", err)
	}
	return res
}

func hgetInt(t *testing.T, rdb *redis.Client, key, field string) int {
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
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	p := activeTpl(10, 2)
	putTemplate(t, rdb, 42, p)
	k := redeemKeys(42, 7, "req-1", "rd-1")
	a := asyncArgs(7, "rd-1")
	a.RateLimit, a.RateWindow = 5, time.Minute

	res := mustRedeem(t, rdb, k, a)
	if want := (RedeemResult{Code: RedeemOK, ReceiveCount: 1, RedemptionID: "rd-1"}); res != want {
		t.Fatalf("Redeem = %+v, want %+v", res, want)
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 9 {
		t.Errorf("stock = %d, want 9", s)
	}
	if n, seq := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Claims, "seq"); n != 1 || seq != 1 {
		t.Errorf("claims n=%d seq=%d, want 1 1", n, seq)
	}
	// The claim hash expires at the template's end, in seconds (D-14: not 1000× later).
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
	want := map[string]any{"rid": "rd-1", "user": "7", "rc": "1", "ts": strconv.FormatInt(a.Now.UnixMilli(), 10)}
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
	preheld := func(n int) func(*testing.T, *redis.Client, RedeemKeys) {
		return func(t *testing.T, rdb *redis.Client, k RedeemKeys) {
			rdb.HSet(context.Background(), k.Claims, "n", n, "seq", n)
		}
	}
	cases := []struct {
		name  string
		tpl   tpl
		setup func(*testing.T, *redis.Client, RedeemKeys)
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
			ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
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
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	k := redeemKeys(11, 3, "req", "rd-1")
	a := asyncArgs(3, "rd-1")
	a.RateLimit, a.RateWindow = 1, time.Minute

	// No hash at all: a code, not a Lua error (D-13), and no partial hash created (D-09).
	for i := 0; i < 2; i++ { // twice: the rate limit (1) must not count cache misses
		res := mustRedeem(t, rdb, k, a)
		if want := (RedeemResult{Code: RedeemCacheMissing}); res != want {
			t.Fatalf("Redeem on a missing hash = %+v, want %+v", res, want)
		}
	}
	if n := rdb.Exists(ctx, k.Template, k.Claims, k.Outbox, k.Request, k.Redemption, k.Rate).Val(); n != 0 {
		t.Errorf("%d keys exist after CACHE_MISSING, want 0", n)
	}

	// A partial hash (no "data", e.g. left by the seed's HINCRBY on an expired hash): same code, the
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

func TestRedeemReplay(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
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
		want.Replayed = true
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
			kk.Redemption = "{t12}:rd:" + rid
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
		r.Replayed = false
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
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	putTemplate(t, rdb, 13, activeTpl(10, 5))
	for i := 1; i <= 2; i++ {
		rid := "rd-" + strconv.Itoa(i)
		res := mustRedeem(t, rdb, redeemKeys(13, 6, "", rid), asyncArgs(6, rid))
		if res.Code != RedeemOK || res.ReceiveCount != i || res.Replayed {
			t.Errorf("claim %d = %+v", i, res)
		}
	}
	if keys := rdb.Keys(ctx, "{t13}:req:*").Val(); len(keys) != 0 {
		t.Errorf("request keys stored without a request id: %v", keys)
	}
	if got := rdb.HGetAll(ctx, "{t13}:tpl").Val(); got["stock"] != "8" || got["data"] != "{}" {
		t.Errorf("template hash = %v", got)
	}
}

func TestRedeemRateLimitedIsNotStored(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
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

func TestRedeemSyncModeWritesNoOutbox(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	putTemplate(t, rdb, 15, activeTpl(10, 2))
	k := redeemKeys(15, 1, "req", "rd-1")
	a := RedeemArgs{UserID: 1, RedemptionID: "rd-1", Now: time.Now(), RequestTTL: time.Minute}
	res := mustRedeem(t, rdb, k, a)
	if res != (RedeemResult{Code: RedeemOK, ReceiveCount: 1, RedemptionID: "rd-1"}) {
		t.Fatalf("Redeem = %+v", res)
	}
	if rdb.Exists(ctx, k.Outbox).Val() != 0 {
		t.Error("sync mode wrote an outbox entry")
	}
	if rdb.Exists(ctx, k.Redemption).Val() != 0 {
		t.Error("redemption key set without RedemptionTTL")
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 9 {
		t.Errorf("stock = %d, want 9", s)
	}

	// Sync mode with a redemption key, and with the unused keys left empty.
	k2 := RedeemKeys{Template: k.Template, Claims: k.Claims, Redemption: "{t15}:rd:rd-2"}
	a.RedemptionID, a.RedemptionTTL = "rd-2", time.Minute
	if res := mustRedeem(t, rdb, k2, a); res.Code != RedeemOK || res.ReceiveCount != 2 {
		t.Fatalf("Redeem = %+v", res)
	}
	if rdb.Get(ctx, k2.Redemption).Val() != "1" || rdb.Exists(ctx, k.Outbox).Val() != 0 {
		t.Error("sync mode with RedemptionTTL: want a redemption key and no outbox")
	}
}

func TestRedeemConcurrentClaimsBalance(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
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
	if s := hgetInt(t, rdb, "{t77}:tpl", "stock"); s != 0 {
		t.Errorf("stock = %d, want 0", s)
	}
	if l := rdb.XLen(ctx, "{t77}:outbox").Val(); l != stock {
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
	for _, m := range rdb.XRange(ctx, "{t77}:outbox", "-", "+").Val() {
		rid, _ := m.Values["rid"].(string)
		if rids[rid] {
			t.Errorf("redemption %s twice in the outbox", rid)
		}
		rids[rid] = true
	}
}

// releaseKeys are the release keys of the claim made with k.
func releaseKeys(k RedeemKeys) ReleaseKeys {
	return ReleaseKeys{Template: k.Template, Claims: k.Claims, Request: k.Request, Redemption: k.Redemption}
}

func mustRelease(t *testing.T, rdb *redis.Client, k ReleaseKeys, giveBackStock, wantReleased bool) {
	t.Helper()
	released, err := RedeemRelease(context.Background(), rdb, k, giveBackStock)
	if err != nil {
		t.Fatalf("RedeemRelease: %v", err)
	}
	if released != wantReleased {
		t.Fatalf("RedeemRelease released = %v, want %v", released, wantReleased)
	}
}

// snapshot renders every key of a template's hash tag, its value and its expiry time, so that a
// call can be shown to change nothing at all.
func snapshot(t *testing.T, rdb *redis.Client, tid int64) string {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "{t"+strconv.FormatInt(tid, 10)+"}:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, key := range keys {
		var v any
		switch typ := rdb.Type(ctx, key).Val(); typ {
		case "hash":
			v = rdb.HGetAll(ctx, key).Val()
		case "string":
			v = rdb.Get(ctx, key).Val()
		case "stream":
			v = rdb.XRange(ctx, key, "-", "+").Val()
		default:
			v = typ
		}
		fmt.Fprintf(&b, "%s=%v exp=%v\n", key, v, rdb.ExpireTime(ctx, key).Val())
	}
	return b.String()
}

func TestRedeemRelease(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	putTemplate(t, rdb, 16, activeTpl(10, 1))
	k := redeemKeys(16, 2, "req", "rd-1")
	if res := mustRedeem(t, rdb, k, asyncArgs(2, "rd-1")); res.Code != RedeemOK || res.ReceiveCount != 1 {
		t.Fatalf("Redeem = %+v", res)
	}

	// Sync-mode failure: n and stock given back, request and redemption keys deleted.
	mustRelease(t, rdb, releaseKeys(k), true, true)
	if n, seq := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Claims, "seq"); n != 0 || seq != 1 {
		t.Errorf("after release n=%d seq=%d, want 0 1", n, seq)
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 10 {
		t.Errorf("stock = %d, want 10 (given back)", s)
	}
	if rdb.Exists(ctx, k.Request).Val() != 0 {
		t.Error("request key survived the release")
	}
	if rdb.Exists(ctx, k.Redemption).Val() != 0 {
		t.Error("redemption key survived the release")
	}

	// The same request id may retry; it gets a new receive_count (seq never reused, D-16).
	k2 := redeemKeys(16, 2, "req", "rd-2")
	res := mustRedeem(t, rdb, k2, asyncArgs(2, "rd-2"))
	if res.Code != RedeemOK || res.ReceiveCount != 2 || res.Replayed {
		t.Fatalf("retry after release = %+v, want OK rc 2", res)
	}

	// Drift: n given back, stock left alone.
	mustRelease(t, rdb, releaseKeys(k2), false, true)
	if n := hgetInt(t, rdb, k.Claims, "n"); n != 0 {
		t.Errorf("n = %d, want 0", n)
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 9 {
		t.Errorf("stock = %d, want 9 (not given back on drift)", s)
	}
	res = mustRedeem(t, rdb, redeemKeys(16, 2, "req-b", "rd-3"), asyncArgs(2, "rd-3"))
	if res.ReceiveCount != 3 {
		t.Errorf("next claim = %+v, want rc 3", res)
	}

	// n never goes below zero, and no claim hash is created.
	rdb.HSet(ctx, k.Claims, "n", 0)
	zero := ReleaseKeys{Template: k.Template, Claims: k.Claims, Redemption: "{t16}:rd:zero"}
	rdb.Set(ctx, zero.Redemption, "2", time.Minute)
	mustRelease(t, rdb, zero, false, true)
	if n := hgetInt(t, rdb, k.Claims, "n"); n != 0 {
		t.Errorf("n = %d after releasing at 0", n)
	}
	ghost := ReleaseKeys{Template: k.Template, Claims: redeemKeys(16, 99, "", "").Claims, Redemption: "{t16}:rd:ghost"}
	rdb.Set(ctx, ghost.Redemption, "99", time.Minute)
	mustRelease(t, rdb, ghost, false, true)
	if rdb.Exists(ctx, ghost.Claims).Val() != 0 {
		t.Error("release created a claim hash")
	}
	// An empty request key must not delete the template hash it is replaced by.
	if rdb.HExists(ctx, k.Template, "data").Val() != true {
		t.Error("release with an empty request key deleted the template hash")
	}
}

func TestRedeemReleaseSyncMode(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	putTemplate(t, rdb, 24, activeTpl(10, 2))
	// Sync mode sets the redemption key too (no outbox), so its release is idempotent as well.
	k := RedeemKeys{Template: "{t24}:tpl", Claims: "{t24}:u:1", Redemption: "{t24}:rd:s-1"}
	a := RedeemArgs{UserID: 1, RedemptionID: "s-1", Now: time.Now(), RedemptionTTL: time.Minute}
	if res := mustRedeem(t, rdb, k, a); res.Code != RedeemOK {
		t.Fatalf("Redeem = %+v", res)
	}
	mustRelease(t, rdb, releaseKeys(k), true, true)
	mustRelease(t, rdb, releaseKeys(k), true, false)
	if n, s := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Template, "stock"); n != 0 || s != 10 {
		t.Errorf("n=%d stock=%d, want 0 10", n, s)
	}
	if rdb.Exists(ctx, k.Redemption, "{t24}:outbox").Val() != 0 {
		t.Error("redemption key or outbox left after a sync-mode release")
	}
}

func TestRedeemReleaseTwiceChangesNothing(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	putTemplate(t, rdb, 21, activeTpl(10, 5))
	k := redeemKeys(21, 4, "req", "rd-1")
	if res := mustRedeem(t, rdb, k, asyncArgs(4, "rd-1")); res.Code != RedeemOK {
		t.Fatalf("Redeem = %+v", res)
	}
	// Another claim of the same user, so that n would visibly go down again.
	if res := mustRedeem(t, rdb, redeemKeys(21, 4, "req-o", "rd-o"), asyncArgs(4, "rd-o")); res.Code != RedeemOK {
		t.Fatalf("Redeem = %+v", res)
	}

	mustRelease(t, rdb, releaseKeys(k), true, true)
	if n, s := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Template, "stock"); n != 1 || s != 9 {
		t.Fatalf("after release n=%d stock=%d, want 1 9", n, s)
	}

	// The user retries with the same request id and gets a new claim, which stores its answer
	// under the request key. Then the persister, restarted after a crash, replays the release of
	// rd-1: nothing changes, the new claim's answer is kept.
	k2 := redeemKeys(21, 4, "req", "rd-2")
	if res := mustRedeem(t, rdb, k2, asyncArgs(4, "rd-2")); res.Code != RedeemOK || res.ReceiveCount != 3 {
		t.Fatalf("retry = %+v, want OK rc 3", res)
	}
	before := snapshot(t, rdb, 21)
	for _, give := range []bool{true, false, true} {
		mustRelease(t, rdb, releaseKeys(k), give, false)
		if after := snapshot(t, rdb, 21); after != before {
			t.Fatalf("a second release changed the keys:\nbefore:\n%s\nafter:\n%s", before, after)
		}
	}
	if n, s := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Template, "stock"); n != 2 || s != 8 {
		t.Errorf("n=%d stock=%d, want 2 8", n, s)
	}
	if res := mustRedeem(t, rdb, k2, asyncArgs(4, "rd-x")); !res.Replayed || res.RedemptionID != "rd-2" {
		t.Errorf("request key after the replayed release = %+v, want the replay of rd-2", res)
	}
	if rdb.Exists(ctx, k2.Redemption).Val() != 1 {
		t.Error("the replayed release deleted the new claim's redemption key")
	}
}

func TestRedeemReleaseUnknownRedemption(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	putTemplate(t, rdb, 22, activeTpl(10, 5))
	k := redeemKeys(22, 6, "req", "rd-1")
	if res := mustRedeem(t, rdb, k, asyncArgs(6, "rd-1")); res.Code != RedeemOK {
		t.Fatalf("Redeem = %+v", res)
	}
	before := snapshot(t, rdb, 22)
	unknown := releaseKeys(k)
	unknown.Redemption = "{t22}:rd:never-accepted"
	for _, give := range []bool{true, false} {
		mustRelease(t, rdb, unknown, give, false)
	}
	if after := snapshot(t, rdb, 22); after != before {
		t.Fatalf("a release of an unknown redemption changed the keys:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if rdb.Exists(ctx, k.Request, k.Redemption).Val() != 2 {
		t.Error("a release of an unknown redemption deleted the claim's keys")
	}

	// A refused claim sets no redemption key, so its release is unknown as well: its stored answer
	// stays under its request key.
	refused := redeemKeys(22, 6, "req-r", "rd-r")
	rdb.HSet(ctx, k.Template, "stock", 0)
	if res := mustRedeem(t, rdb, refused, asyncArgs(6, "rd-r")); res.Code != RedeemOutOfStock {
		t.Fatalf("Redeem = %+v, want OUT_OF_STOCK", res)
	}
	before = snapshot(t, rdb, 22)
	mustRelease(t, rdb, releaseKeys(refused), true, false)
	if after := snapshot(t, rdb, 22); after != before {
		t.Fatalf("a release of a refused claim changed the keys:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if rdb.Exists(ctx, refused.Request).Val() != 1 {
		t.Error("a release of a refused claim deleted its request key")
	}
}

func TestRedeemReleaseConcurrent(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	putTemplate(t, rdb, 23, activeTpl(10, 5))
	for i := 1; i <= 3; i++ {
		rid := "rd-" + strconv.Itoa(i)
		if res := mustRedeem(t, rdb, redeemKeys(23, 8, rid, rid), asyncArgs(8, rid)); res.Code != RedeemOK {
			t.Fatalf("Redeem = %+v", res)
		}
	}
	k := releaseKeys(redeemKeys(23, 8, "rd-2", "rd-2"))

	const goroutines = 20
	var (
		wg       sync.WaitGroup
		released atomic.Int64
		start    = make(chan struct{})
	)
	for i := 0; i < goroutines; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ok, err := RedeemRelease(ctx, rdb, k, true)
			if err != nil {
				t.Error(err)
			}
			if ok {
				released.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if r := released.Load(); r != 1 {
		t.Errorf("%d releases reported released, want exactly 1", r)
	}
	if n, seq := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Claims, "seq"); n != 2 || seq != 3 {
		t.Errorf("n=%d seq=%d after %d releases of one claim, want 2 3", n, seq, goroutines)
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 8 {
		t.Errorf("stock = %d, want 8 (given back once)", s)
	}
	if rdb.Exists(ctx, "{t23}:rd:rd-1", "{t23}:rd:rd-3").Val() != 2 {
		t.Error("the releases deleted the redemption keys of other claims")
	}
}

func TestRedeemReleaseWithoutTemplateHash(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	k := releaseKeys(redeemKeys(17, 3, "req", "rd"))
	rdb.HSet(ctx, k.Claims, "n", 2, "seq", 2)
	rdb.Set(ctx, k.Request, "0:2:rd", time.Minute)
	rdb.Set(ctx, k.Redemption, "3", time.Minute)
	mustRelease(t, rdb, k, true, true)
	if rdb.Exists(ctx, k.Template).Val() != 0 {
		t.Error("release created a template hash (D-09)")
	}
	if n := hgetInt(t, rdb, k.Claims, "n"); n != 1 {
		t.Errorf("n = %d, want 1", n)
	}
	if rdb.Exists(ctx, k.Request).Val() != 0 {
		t.Error("request key survived the release")
	}

	// A partial hash is not completed either.
	rdb.HSet(ctx, k.Template, "stock", 3)
	k2 := ReleaseKeys{Template: k.Template, Claims: k.Claims, Redemption: "{t17}:rd:rd-2"}
	rdb.Set(ctx, k2.Redemption, "3", time.Minute)
	mustRelease(t, rdb, k2, true, true)
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 3 {
		t.Errorf("partial hash stock = %d, want 3", s)
	}
	if n := hgetInt(t, rdb, k.Claims, "n"); n != 0 {
		t.Errorf("n = %d, want 0", n)
	}
}

func TestRedeemReleaseReturns(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	putTemplate(t, rdb, 18, activeTpl(4, 2))
	k := redeemKeys(18, 1, "", "")
	rd := "{t18}:rd:x"
	rdb.HSet(ctx, k.Claims, "n", 2, "seq", 2)
	run := func(keys []string, give string) string {
		t.Helper()
		got, err := redeemRelease.Run(ctx, rdb, keys, give).Int64Slice()
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(got)
	}
	rdb.Set(ctx, rd, "1", time.Minute)
	if got := run([]string{k.Template, k.Claims, k.Template, rd}, "1"); got != "[1 5]" {
		t.Errorf("release = %s, want [1 5]", got)
	}
	if got := run([]string{k.Template, k.Claims, k.Template, rd}, "1"); got != "[-1 -1]" {
		t.Errorf("second release = %s, want [-1 -1]", got)
	}
	rdb.Set(ctx, rd, "1", time.Minute)
	if got := run([]string{k.Template, k.Claims, k.Template, rd}, "0"); got != "[0 5]" {
		t.Errorf("release = %s, want [0 5]", got)
	}
	rdb.Set(ctx, rd, "1", time.Minute)
	if got := run([]string{"{t18}:nothing", "{t18}:u:none", "", rd}, "1"); got != "[0 -1]" {
		t.Errorf("release without hashes = %s, want [0 -1]", got)
	}
	if got := run([]string{k.Template, k.Claims, "", "{t18}:rd:unknown"}, "1"); got != "[-1 -1]" {
		t.Errorf("release of an unknown redemption = %s, want [-1 -1]", got)
	}
}

func TestRedeemReleaseArgumentErrors(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	putTemplate(t, rdb, 25, activeTpl(10, 2))
	k := redeemKeys(25, 1, "req", "rd")
	if res := mustRedeem(t, rdb, k, asyncArgs(1, "rd")); res.Code != RedeemOK {
		t.Fatalf("Redeem = %+v", res)
	}
	good := releaseKeys(k)
	before := snapshot(t, rdb, 25)
	bad := []struct {
		name string
		k    func(*ReleaseKeys)
	}{
		{"no redemption key", func(k *ReleaseKeys) { k.Redemption = "" }},
		{"no template key", func(k *ReleaseKeys) { k.Template = "" }},
		{"no claims key", func(k *ReleaseKeys) { k.Claims = "" }},
		{"redemption key is the template key", func(k *ReleaseKeys) { k.Redemption = k.Template }},
		{"redemption key is the claims key", func(k *ReleaseKeys) { k.Redemption = k.Claims }},
		{"redemption key is the request key", func(k *ReleaseKeys) { k.Redemption = k.Request }},
	}
	for _, c := range bad {
		kk := good
		c.k(&kk)
		if released, err := RedeemRelease(ctx, rdb, kk, true); err == nil || released {
			t.Errorf("%s: released=%v err=%v, want an error", c.name, released, err)
		}
	}
	if after := snapshot(t, rdb, 25); after != before {
		t.Errorf("refused releases changed the keys:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestRedeemArgumentErrors(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
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

func TestRedeemScriptSourceAndSHA(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, testutil.RedisDBLua)
	sum := sha1.Sum([]byte(RedeemScriptSource()))
	if hex.EncodeToString(sum[:]) != RedeemScriptSHA() {
		t.Fatal("RedeemScriptSHA is not the SHA-1 of RedeemScriptSource")
	}
	sha, err := rdb.ScriptLoad(ctx, RedeemScriptSource()).Result()
	if err != nil || sha != RedeemScriptSHA() {
		t.Fatalf("SCRIPT LOAD = %s, %v", sha, err)
	}
	// The raw call the benchmark makes: EVALSHA with 6 keys and 8 arguments.
	putTemplate(t, rdb, 20, activeTpl(1, 1))
	k := redeemKeys(20, 1, "r", "rd")
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	got, err := rdb.EvalSha(ctx, sha, []string{k.Template, k.Claims, k.Outbox, k.Request, k.Redemption, k.Rate},
		"1", "rd", now, "60", "0", "0", "1", "60").Slice()
	if err != nil || fmt.Sprint(got) != "[0 1 rd 0]" {
		t.Errorf("EVALSHA = %v, %v; want [0 1 rd 0]", got, err)
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
	rdb := testutil.Redis(t, testutil.RedisDBLua)
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
