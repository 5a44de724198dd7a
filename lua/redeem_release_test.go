package lua

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/store"
	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

func releaseKeys(k RedeemKeys) ReleaseKeys {
	return ReleaseKeys{Template: k.Template, Claims: k.Claims, Request: k.Request, Redemption: k.Redemption}
}

func mustRelease(t *testing.T, rdb redis.UniversalClient, k ReleaseKeys, wantReleased bool) {
	t.Helper()
	released, err := RedeemRelease(context.Background(), rdb, k)
	if err != nil {
		t.Fatalf("RedeemRelease: %v", err)
	}
	if released != wantReleased {
		t.Fatalf("RedeemRelease released = %v, want %v", released, wantReleased)
	}
}

// snapshot renders every key of a template's hash tag, its value and its expiry time, so that a
// call can be shown to change nothing at all.
func snapshot(t *testing.T, rdb redis.UniversalClient, tid int64) string {
	t.Helper()
	ctx := context.Background()
	keys := keysMatching(t, rdb, ns+"{t"+strconv.FormatInt(tid, 10)+"}:*")
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
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 16, activeTpl(10, 1))
	k := redeemKeys(16, 2, "req", "rd-1")
	if res := mustRedeem(t, rdb, k, asyncArgs(2, "rd-1")); res.Code != RedeemOK || res.ReceiveCount != 1 {
		t.Fatalf("Redeem = %+v", res)
	}

	// A failed claim: n and stock given back, request and redemption keys deleted.
	mustRelease(t, rdb, releaseKeys(k), true)
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

	// The same request id may retry; it gets a new receive_count (seq never reused).
	k2 := redeemKeys(16, 2, "req", "rd-2")
	res := mustRedeem(t, rdb, k2, asyncArgs(2, "rd-2"))
	if res.Code != RedeemOK || res.ReceiveCount != 2 || res.Replayed {
		t.Fatalf("retry after release = %+v, want OK rc 2", res)
	}

	mustRelease(t, rdb, releaseKeys(k2), true)
	if n, s := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Template, "stock"); n != 0 || s != 10 {
		t.Errorf("n = %d, stock = %d; want 0 and 10", n, s)
	}
	res = mustRedeem(t, rdb, redeemKeys(16, 2, "req-b", "rd-3"), asyncArgs(2, "rd-3"))
	if res.ReceiveCount != 3 {
		t.Errorf("next claim = %+v, want rc 3", res)
	}

	// n never goes below zero, and no claim hash is created.
	rdb.HSet(ctx, k.Claims, "n", 0)
	zero := ReleaseKeys{Template: k.Template, Claims: k.Claims, Redemption: ns + "{t16}:rd:zero"}
	rdb.Set(ctx, zero.Redemption, "2", time.Minute)
	mustRelease(t, rdb, zero, true)
	if n := hgetInt(t, rdb, k.Claims, "n"); n != 0 {
		t.Errorf("n = %d after releasing at 0", n)
	}
	ghost := ReleaseKeys{Template: k.Template, Claims: redeemKeys(16, 99, "", "").Claims, Redemption: ns + "{t16}:rd:ghost"}
	rdb.Set(ctx, ghost.Redemption, "99", time.Minute)
	mustRelease(t, rdb, ghost, true)
	if rdb.Exists(ctx, ghost.Claims).Val() != 0 {
		t.Error("release created a claim hash")
	}
	// An empty request key must not delete the template hash it is replaced by.
	if rdb.HExists(ctx, k.Template, "data").Val() != true {
		t.Error("release with an empty request key deleted the template hash")
	}
}

func TestRedeemReleaseWithoutOutbox(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 24, activeTpl(10, 2))
	// A claim put in no outbox sets the redemption key too, so its release is idempotent as well.
	k := RedeemKeys{Template: ns + "{t24}:tpl", Claims: ns + "{t24}:u:1", Redemption: ns + "{t24}:rd:s-1"}
	a := RedeemArgs{UserID: 1, RedemptionID: "s-1", Now: time.Now(), RedemptionTTL: time.Minute}
	if res := mustRedeem(t, rdb, k, a); res.Code != RedeemOK {
		t.Fatalf("Redeem = %+v", res)
	}
	mustRelease(t, rdb, releaseKeys(k), true)
	mustRelease(t, rdb, releaseKeys(k), false)
	if n, s := hgetInt(t, rdb, k.Claims, "n"), hgetInt(t, rdb, k.Template, "stock"); n != 0 || s != 10 {
		t.Errorf("n=%d stock=%d, want 0 10", n, s)
	}
	if rdb.Exists(ctx, k.Redemption, ns+"{t24}:outbox").Val() != 0 {
		t.Error("redemption key or outbox left after a sync-mode release")
	}
}

func TestRedeemReleaseTwiceChangesNothing(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 21, activeTpl(10, 5))
	k := redeemKeys(21, 4, "req", "rd-1")
	if res := mustRedeem(t, rdb, k, asyncArgs(4, "rd-1")); res.Code != RedeemOK {
		t.Fatalf("Redeem = %+v", res)
	}
	// Another claim of the same user, so that n would visibly go down again.
	if res := mustRedeem(t, rdb, redeemKeys(21, 4, "req-o", "rd-o"), asyncArgs(4, "rd-o")); res.Code != RedeemOK {
		t.Fatalf("Redeem = %+v", res)
	}

	mustRelease(t, rdb, releaseKeys(k), true)
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
	for range 3 {
		mustRelease(t, rdb, releaseKeys(k), false)
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
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 22, activeTpl(10, 5))
	k := redeemKeys(22, 6, "req", "rd-1")
	if res := mustRedeem(t, rdb, k, asyncArgs(6, "rd-1")); res.Code != RedeemOK {
		t.Fatalf("Redeem = %+v", res)
	}
	before := snapshot(t, rdb, 22)
	unknown := releaseKeys(k)
	unknown.Redemption = ns + "{t22}:rd:never-accepted"
	for range 2 {
		mustRelease(t, rdb, unknown, false)
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
	mustRelease(t, rdb, releaseKeys(refused), false)
	if after := snapshot(t, rdb, 22); after != before {
		t.Fatalf("a release of a refused claim changed the keys:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if rdb.Exists(ctx, refused.Request).Val() != 1 {
		t.Error("a release of a refused claim deleted its request key")
	}
}

func TestRedeemReleaseConcurrent(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
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
			ok, err := RedeemRelease(ctx, rdb, k)
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
	if rdb.Exists(ctx, ns+"{t23}:rd:rd-1", ns+"{t23}:rd:rd-3").Val() != 2 {
		t.Error("the releases deleted the redemption keys of other claims")
	}
}

func TestRedeemReleaseWithoutTemplateHash(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	k := releaseKeys(redeemKeys(17, 3, "req", "rd"))
	rdb.HSet(ctx, k.Claims, "n", 2, "seq", 2)
	rdb.Set(ctx, k.Request, "0:2:rd", time.Minute)
	rdb.Set(ctx, k.Redemption, "3", time.Minute)
	mustRelease(t, rdb, k, true)
	if rdb.Exists(ctx, k.Template).Val() != 0 {
		t.Error("release created a template hash")
	}
	if n := hgetInt(t, rdb, k.Claims, "n"); n != 1 {
		t.Errorf("n = %d, want 1", n)
	}
	if rdb.Exists(ctx, k.Request).Val() != 0 {
		t.Error("request key survived the release")
	}

	// A partial hash is not completed either.
	rdb.HSet(ctx, k.Template, "stock", 3)
	k2 := ReleaseKeys{Template: k.Template, Claims: k.Claims, Redemption: ns + "{t17}:rd:rd-2"}
	rdb.Set(ctx, k2.Redemption, "3", time.Minute)
	mustRelease(t, rdb, k2, true)
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 3 {
		t.Errorf("partial hash stock = %d, want 3", s)
	}
	if n := hgetInt(t, rdb, k.Claims, "n"); n != 0 {
		t.Errorf("n = %d, want 0", n)
	}
}

func TestRedeemReleaseReturns(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	putTemplate(t, rdb, 18, activeTpl(4, 2))
	k := redeemKeys(18, 1, "", "")
	rd := ns + "{t18}:rd:x"
	rdb.HSet(ctx, k.Claims, "n", 2, "seq", 2)
	run := func(keys []string) string {
		t.Helper()
		got, err := redeemRelease.Run(ctx, rdb, keys).Int64Slice()
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(got)
	}
	rdb.Set(ctx, rd, "1", time.Minute)
	if got := run([]string{k.Template, k.Claims, k.Template, rd}); got != "[1 5]" {
		t.Errorf("release = %s, want [1 5]", got)
	}
	if got := run([]string{k.Template, k.Claims, k.Template, rd}); got != "[-1 -1]" {
		t.Errorf("second release = %s, want [-1 -1]", got)
	}
	rdb.Set(ctx, rd, "1", time.Minute)
	if got := run([]string{k.Template, k.Claims, k.Template, rd}); got != "[0 6]" {
		t.Errorf("release = %s, want [0 6]", got)
	}
	rdb.Set(ctx, rd, "1", time.Minute)
	// The script reads a KEYS[3] of "" as no request key. "" hashes to slot 0, so on a Redis
	// Cluster KEYS[1], the same-tag stand-in RedeemRelease passes, takes its place.
	noRequest := func(template string) string {
		if len(testutil.RedisCluster()) > 0 {
			return template
		}
		return ""
	}
	if got := run([]string{ns + "{t18}:nothing", ns + "{t18}:u:none", noRequest(ns + "{t18}:nothing"), rd}); got != "[0 -1]" {
		t.Errorf("release without hashes = %s, want [0 -1]", got)
	}
	if got := run([]string{k.Template, k.Claims, noRequest(k.Template), ns + "{t18}:rd:unknown"}); got != "[-1 -1]" {
		t.Errorf("release of an unknown redemption = %s, want [-1 -1]", got)
	}
}

func TestRedeemReleaseArgumentErrors(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
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
		if released, err := RedeemRelease(ctx, rdb, kk); err == nil || released {
			t.Errorf("%s: released=%v err=%v, want an error", c.name, released, err)
		}
	}
	if after := snapshot(t, rdb, 25); after != before {
		t.Errorf("refused releases changed the keys:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// keysMatching returns the keys matching pattern (KEYS on every master of a cluster).
func keysMatching(t *testing.T, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	var mu sync.Mutex
	var all []string
	err := store.ForEachMaster(context.Background(), rdb, func(ctx context.Context, node *redis.Client) error {
		ks, err := node.Keys(ctx, pattern).Result()
		mu.Lock()
		all = append(all, ks...)
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}
