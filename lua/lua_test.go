package lua

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

// ns is this package's Redis key namespace (testutil.Redis(t, "lua") sets and empties it).
var ns = testutil.Namespace("lua")

var keys = TemplateKeys{Hash: ns + "{t7}:tpl", Null: ns + "{t7}:null", Lock: ns + "{t7}:lock"}

func fields(stock string) map[string]string {
	return map[string]string{"stock": stock, "total": "100", "status": "ACTIVE", "ver": "3", "data": "{}"}
}

func TestEveryScriptHasShebangAndHeader(t *testing.T) {
	names, err := fs.Glob(sources, "*.lua")
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedded scripts: %v", err)
	}
	for _, name := range names {
		src, _ := sources.ReadFile(name)
		lines := strings.Split(string(src), "\n")
		if lines[0] != "#!lua" && !strings.HasPrefix(lines[0], "#!lua flags=") {
			t.Errorf("%s: does not start with #!lua (without it a Redis Cluster node lets the script touch keys it did not declare)", name)
		}
		lines = lines[1:]
		if !strings.HasPrefix(lines[0], "-- ") {
			t.Errorf("%s: does not start with a header comment", name)
		}
		var header strings.Builder
		for _, l := range lines {
			if !strings.HasPrefix(l, "--") {
				break
			}
			header.WriteString(l + "\n")
		}
		for _, word := range []string{"KEYS", "ARGV", "Returns"} {
			if !strings.Contains(header.String(), word) {
				t.Errorf("%s: header does not state %s", name, word)
			}
		}
	}
}

func TestTemplatePutWritesWholeHash(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	rdb.Set(ctx, keys.Null, "1", time.Hour)
	rdb.HSet(ctx, keys.Hash, "stale", "x") // a leftover field must not survive
	end := time.Now().Add(time.Hour).Unix()

	ok, err := TemplatePut(ctx, rdb, keys, fields("50"), end, "")
	if err != nil || !ok {
		t.Fatalf("TemplatePut = %v, %v", ok, err)
	}
	got := rdb.HGetAll(ctx, keys.Hash).Val()
	want := fields("50")
	if len(got) != len(want) {
		t.Fatalf("hash = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("field %s = %q, want %q", k, got[k], v)
		}
	}
	if at := rdb.ExpireTime(ctx, keys.Hash).Val(); at != time.Duration(end)*time.Second {
		t.Errorf("expire time = %v, want unix %d", at, end)
	}
	if rdb.Exists(ctx, keys.Null).Val() != 0 {
		t.Error("null-value key survived the put")
	}
}

func TestTemplatePutOwnerKeepsSmallerStockAndBreaksLock(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	end := time.Now().Add(time.Hour).Unix()
	mustPut(t, rdb, fields("40"), end, "")
	rdb.Set(ctx, keys.Lock, "rebuilder", time.Minute)

	mustPut(t, rdb, fields("90"), end, "") // DB says 90, Redis already handed out more: keep 40
	if s := rdb.HGet(ctx, keys.Hash, "stock").Val(); s != "40" {
		t.Errorf("stock = %s, want the smaller 40", s)
	}
	if rdb.Exists(ctx, keys.Lock).Val() != 0 {
		t.Error("owner's put left the rebuild lock in place")
	}
	rdb.HSet(ctx, keys.Hash, "epoch", "12") // a reconciliation's snapshot raised it
	mustPut(t, rdb, fields("30"), end, "")
	if s := rdb.HGet(ctx, keys.Hash, "stock").Val(); s != "30" {
		t.Errorf("stock = %s, want 30", s)
	}
	if e := rdb.HGet(ctx, keys.Hash, "epoch").Val(); e != "12" {
		t.Errorf("epoch = %q after a put, want 12 kept (units carrying a lower one would read as after the next snapshot)", e)
	}

	// A partial hash (no data) is no evidence of claims: its stock is not kept.
	rdb.Del(ctx, keys.Hash)
	rdb.HSet(ctx, keys.Hash, "stock", "1")
	mustPut(t, rdb, fields("60"), end, "")
	if s := rdb.HGet(ctx, keys.Hash, "stock").Val(); s != "60" {
		t.Errorf("stock over a partial hash = %s, want 60", s)
	}
}

func TestTemplatePutWithTokenNeedsTheLock(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	end := time.Now().Add(time.Hour).Unix()
	rdb.Set(ctx, keys.Null, "1", time.Hour)

	for _, held := range []string{"", "someone-else"} {
		rdb.Del(ctx, keys.Lock)
		if held != "" {
			rdb.Set(ctx, keys.Lock, held, time.Minute)
		}
		ok, err := TemplatePut(ctx, rdb, keys, fields("5"), end, "mine")
		if err != nil || ok {
			t.Fatalf("lock %q: TemplatePut = %v, %v; want not written", held, ok, err)
		}
		if rdb.Exists(ctx, keys.Hash).Val() != 0 || rdb.Exists(ctx, keys.Null).Val() != 1 {
			t.Fatalf("lock %q: a refused put changed keys", held)
		}
	}

	rdb.Set(ctx, keys.Lock, "mine", time.Minute)
	if ok, err := TemplatePut(ctx, rdb, keys, fields("5"), end, "mine"); err != nil || !ok {
		t.Fatalf("TemplatePut with the held token = %v, %v", ok, err)
	}
	if rdb.HGet(ctx, keys.Hash, "stock").Val() != "5" || rdb.Exists(ctx, keys.Null).Val() != 0 {
		t.Error("put under the lock did not write the hash or clear the null key")
	}
	if rdb.Get(ctx, keys.Lock).Val() != "mine" {
		t.Error("put under the lock released the lock; the holder releases it")
	}
}

func TestTemplateSetNull(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	if ok, err := TemplateSetNull(ctx, rdb, keys, 60_000, "mine"); err != nil || ok {
		t.Fatalf("without the lock: %v, %v; want not set", ok, err)
	}
	if rdb.Exists(ctx, keys.Null).Val() != 0 {
		t.Fatal("null key set without the lock")
	}
	rdb.Set(ctx, keys.Lock, "mine", time.Minute)
	if ok, err := TemplateSetNull(ctx, rdb, keys, 60_000, "mine"); err != nil || !ok {
		t.Fatalf("with the lock: %v, %v", ok, err)
	}
	if ttl := rdb.PTTL(ctx, keys.Null).Val(); ttl <= 59*time.Second || ttl > time.Minute {
		t.Errorf("null key TTL = %v, want about 60s", ttl)
	}
}

func TestTemplateAddStock(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")

	// No hash, or a partial one, is never written to (a partial hash breaks later reads).
	rdb.Set(ctx, keys.Lock, "rebuilder", time.Minute)
	if ok, err := TemplateAddStock(ctx, rdb, keys, 5); err != nil || ok {
		t.Fatalf("missing hash: %v, %v; want cached=false", ok, err)
	}
	if rdb.Exists(ctx, keys.Hash).Val() != 0 {
		t.Fatal("add to a missing hash created it")
	}
	if rdb.Exists(ctx, keys.Lock).Val() != 0 {
		t.Error("add to a missing hash left the rebuild lock")
	}
	rdb.HSet(ctx, keys.Hash, "stock", "3")
	if ok, _ := TemplateAddStock(ctx, rdb, keys, 5); ok {
		t.Fatal("partial hash: cached=true")
	}
	if got := rdb.HGetAll(ctx, keys.Hash).Val(); len(got) != 1 || got["stock"] != "3" {
		t.Fatalf("partial hash changed: %v", got)
	}

	rdb.Del(ctx, keys.Hash)
	mustPut(t, rdb, fields("10"), time.Now().Add(time.Hour).Unix(), "")
	if ok, err := TemplateAddStock(ctx, rdb, keys, 5); err != nil || !ok {
		t.Fatalf("complete hash: %v, %v", ok, err)
	}
	got := rdb.HGetAll(ctx, keys.Hash).Val()
	if got["stock"] != "15" || got["total"] != "105" || got["ver"] != "4" {
		t.Errorf("after +5: stock %s total %s ver %s, want 15 105 4", got["stock"], got["total"], got["ver"])
	}
}

func TestTemplateMarkEnded(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	rdb.Set(ctx, keys.Lock, "rebuilder", time.Minute)
	if ok, err := TemplateMarkEnded(ctx, rdb, keys); err != nil || ok {
		t.Fatalf("missing hash: %v, %v; want cached=false", ok, err)
	}
	if rdb.Exists(ctx, keys.Hash, keys.Lock).Val() != 0 {
		t.Fatal("mark on a missing hash created it or left the lock")
	}
	mustPut(t, rdb, fields("10"), time.Now().Add(time.Hour).Unix(), "")
	if ok, err := TemplateMarkEnded(ctx, rdb, keys); err != nil || !ok {
		t.Fatalf("complete hash: %v, %v", ok, err)
	}
	for range 2 { // a repeat changes nothing
		got := rdb.HGetAll(ctx, keys.Hash).Val()
		if got["status"] != "ENDED" || got["ver"] != "4" || got["stock"] != "10" {
			t.Errorf("after mark: %v", got)
		}
		if ok, err := TemplateMarkEnded(ctx, rdb, keys); err != nil || !ok {
			t.Fatalf("repeat: %v, %v", ok, err)
		}
	}
}

func TestUnlockComparesToken(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	rdb.Set(ctx, keys.Lock, "theirs", time.Minute)
	if ok, err := Unlock(ctx, rdb, keys.Lock, "mine"); err != nil || ok {
		t.Fatalf("foreign lock: %v, %v; want not released", ok, err)
	}
	if rdb.Get(ctx, keys.Lock).Val() != "theirs" {
		t.Fatal("foreign lock deleted")
	}
	if ok, err := Unlock(ctx, rdb, keys.Lock, "theirs"); err != nil || !ok {
		t.Fatalf("own lock: %v, %v", ok, err)
	}
	if ok, _ := Unlock(ctx, rdb, keys.Lock, "theirs"); ok {
		t.Fatal("released a lock that no longer exists")
	}
}

func TestScriptsSurviveScriptFlush(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	rdb.ScriptFlush(ctx)
	if _, err := Unlock(ctx, rdb, keys.Lock, "x"); err != nil {
		t.Fatalf("after SCRIPT FLUSH: %v", err)
	}
}

func mustPut(t *testing.T, rdb redis.UniversalClient, f map[string]string, expireAt int64, token string) {
	t.Helper()
	if ok, err := TemplatePut(context.Background(), rdb, keys, f, expireAt, token); err != nil || !ok {
		t.Fatalf("TemplatePut = %v, %v", ok, err)
	}
}

func TestLeaseRenew(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	key := ns + "{t9}:persist"
	if ok, err := LeaseRenew(ctx, rdb, key, "me", time.Second); err != nil || ok {
		t.Fatalf("renew of a free lease = %v, %v; want false", ok, err)
	}
	rdb.Set(ctx, key, "me", 100*time.Millisecond)
	if ok, err := LeaseRenew(ctx, rdb, key, "me", 10*time.Second); err != nil || !ok {
		t.Fatalf("renew of my lease = %v, %v; want true", ok, err)
	}
	if ttl := rdb.PTTL(ctx, key).Val(); ttl < 9*time.Second {
		t.Fatalf("ttl after renew = %v, want about 10s", ttl)
	}
	if ok, _ := LeaseRenew(ctx, rdb, key, "other", time.Minute); ok || rdb.PTTL(ctx, key).Val() > 10*time.Second {
		t.Fatal("another token renewed my lease")
	}
}
