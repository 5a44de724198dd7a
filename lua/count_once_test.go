package lua

import (
	"context"
	"sync"
	"testing"
	"time"

	"coupond/testutil"
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
