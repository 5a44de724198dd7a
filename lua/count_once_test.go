package lua

import (
	"context"
	"sync"
	"testing"
	"time"

	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

// TestCountOnce: 20 racing replays of one event count it once; another event counts again.
func TestCountOnce(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	stats, marker := ns+"{t8}:stats:2026-12-01", ns+"{t8}:counted:1:paid"
	rdb.Del(ctx, stats, marker, marker+"2")
	var wg sync.WaitGroup
	counted := make(chan bool, 20)
	for range 20 {
		wg.Go(func() {
			ok, err := CountOnce(ctx, rdb, stats, marker, time.Hour, Increment{"used", 1}, Increment{"discount_cents", 1250})
			if err != nil {
				t.Error(err)
			}
			counted <- ok
		})
	}
	wg.Wait()
	close(counted)
	n := 0
	for ok := range counted {
		if ok {
			n++
		}
	}
	if got := rdb.HGetAll(ctx, stats).Val(); n != 1 || got["used"] != "1" || got["discount_cents"] != "1250" {
		t.Fatalf("counted %d times, stats %v", n, got)
	}
	if ttl := rdb.TTL(ctx, marker).Val(); ttl < 59*time.Minute {
		t.Fatalf("marker ttl %v", ttl)
	}
	if ok, err := CountOnce(ctx, rdb, stats, marker+"2", time.Hour, Increment{"used", 1}); err != nil || !ok || rdb.HGet(ctx, stats, "used").Val() != "2" {
		t.Fatalf("a second event: %v, %v", ok, err)
	}
}

// TestCountOnceInPipelined: counts queued in one pipeline run in order, each once, also after
// SCRIPT FLUSH (the pipeline refused as NOSCRIPT loads the scripts and runs again, counting
// nothing twice).
func TestCountOnceInPipelined(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	stats, marker := ns+"{t9}:stats:live", ns+"{t9}:counted:"
	rdb.Del(ctx, stats, marker+"lock", marker+"unlock", marker+"again")
	fill := func(p redis.Pipeliner) {
		CountOnceIn(ctx, p, stats, marker+"lock", time.Hour, Increment{"locked", 1})
		CountOnceIn(ctx, p, stats, marker+"unlock", time.Hour, Increment{"locked", -1})
		p.SAdd(ctx, ns+"touched", "t9")
	}
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := Pipelined(ctx, rdb, fill); err != nil {
			t.Fatal(err)
		}
	}
	if err := Pipelined(ctx, rdb, func(p redis.Pipeliner) {
		CountOnceIn(ctx, p, stats, marker+"again", time.Hour, Increment{"locked", 5})
	}); err != nil {
		t.Fatal(err)
	}
	if got := rdb.HGetAll(ctx, stats).Val(); got["locked"] != "5" {
		t.Fatalf("stats %v, want locked 5 (+1 −1 once each, then +5)", got)
	}
}
