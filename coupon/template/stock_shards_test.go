package template

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"coupond/coupon/keys"

	promtest "github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
)

const shardedTemplate = 424242

// seedShards writes the stock hashes of shardedTemplate's len(stocks) shards.
func seedShards(t *testing.T, rdb redis.UniversalClient, stocks ...int) {
	t.Helper()
	for i, s := range stocks {
		k := keys.StockShard(shardedTemplate, i, len(stocks)).Stock()
		if err := rdb.HSet(context.Background(), k, "stock", s, "data", "{}").Err(); err != nil {
			t.Fatal(err)
		}
	}
}

func shardStocks(t *testing.T, rdb redis.UniversalClient, n int) []int {
	t.Helper()
	out := make([]int, n)
	for i := range out {
		out[i], _ = rdb.HGet(context.Background(), keys.StockShard(shardedTemplate, i, n).Stock(), "stock").Int()
	}
	return out
}

// redisUnits is what Redis may still hand out: Σ sub-stocks + Σ lends not received.
func redisUnits(t *testing.T, c *Cache, n int) int {
	t.Helper()
	open, err := c.OpenLendUnits(context.Background(), shardedTemplate, n)
	if err != nil {
		t.Fatal(err)
	}
	sum := open
	for _, s := range shardStocks(t, c.rdb, n) {
		sum += s
	}
	return sum
}

func TestSplitStock(t *testing.T) {
	for _, c := range []struct {
		stock, n int
		want     []int
	}{{10, 1, []int{10}}, {10, 3, []int{4, 3, 3}}, {2, 4, []int{1, 1, 0, 0}}, {-3, 4, []int{-3}}} {
		got := SplitStock(c.stock, c.n)
		if len(got) != len(c.want) {
			t.Fatalf("SplitStock(%d, %d) = %v, want %v", c.stock, c.n, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("SplitStock(%d, %d) = %v, want %v", c.stock, c.n, got, c.want)
			}
		}
	}
}

// TestBorrowFillsTheEmptyShard: an empty shard borrows from another (at most half of its stock),
// the units are the same after every step, and with every other shard empty it gets nothing.
func TestBorrowFillsTheEmptyShard(t *testing.T) {
	a, _, rdb := newAdmin(t, "borrow")
	c, ctx := a.cache, context.Background()
	seedShards(t, rdb, 0, 0, 10, 0)
	c.onBorrowStep = func(step string) error {
		if got := redisUnits(t, c, 4); got != 10 {
			t.Errorf("after %s: %d units, want 10", step, got)
		}
		return nil
	}
	got, err := c.Borrow(ctx, shardedTemplate, 0, 4)
	if err != nil || got != 5 {
		t.Fatalf("borrow: %d, %v; want 5", got, err)
	}
	if s := shardStocks(t, rdb, 4); s[0] != 5 || s[2] != 5 || redisUnits(t, c, 4) != 10 {
		t.Fatalf("stocks %v after the borrow", s)
	}
	if err := c.ObserveShards(ctx, shardedTemplate, 4); err != nil {
		t.Fatal(err)
	}
	id := strconv.Itoa(shardedTemplate)
	if a, b := promtest.ToFloat64(shardRemaining.WithLabelValues(id, "0")), promtest.ToFloat64(shardRemaining.WithLabelValues(id, "2")); a != 5 || b != 5 {
		t.Fatalf("coupond_stock_shard_remaining of shards 0 and 2: %v, %v; want 5, 5", a, b)
	}
	seedShards(t, rdb, 0, 0, 0, 0)
	if got, err := c.Borrow(ctx, shardedTemplate, 1, 4); err != nil || got != 0 {
		t.Fatalf("borrow with every shard empty: %d, %v", got, err)
	}
}

// TestBorrowCrashIsSwept: a borrower that stops (crashes) between lend and receive, or between
// receive and settle, leaves a lend open; the units are conserved throughout, and the sweep
// settles it: cancelled and given back in the first case, closed with the borrower keeping the
// units in the second. A borrow the sweep cancelled under a live borrower never reaches it.
func TestBorrowCrashIsSwept(t *testing.T) {
	a, _, rdb := newAdmin(t, "borrow_crash")
	c, ctx := a.cache, context.Background()
	crash := errors.New("crash")
	for _, at := range []string{"lent", "received"} {
		t.Run(at, func(t *testing.T) {
			seedShards(t, rdb, 0, 40, 0)
			c.onBorrowStep = func(step string) error {
				if step == at {
					return crash
				}
				return nil
			}
			if _, err := c.Borrow(ctx, shardedTemplate, 0, 3); !errors.Is(err, crash) {
				t.Fatalf("borrow: %v, want the crash", err)
			}
			c.onBorrowStep = nil
			if got := redisUnits(t, c, 3); got != 40 {
				t.Fatalf("after the crash: %d units, want 40", got)
			}
			if n, err := c.SweepLends(ctx, shardedTemplate, 3, time.Hour); err != nil || n != 0 {
				t.Fatalf("sweep of a young lend: %d, %v; want it left alone", n, err)
			}
			if n, err := c.SweepLends(ctx, shardedTemplate, 3, 0); err != nil || n != 1 {
				t.Fatalf("sweep: %d, %v; want 1 lend settled", n, err)
			}
			want := []int{0, 40, 0}
			if at == "received" {
				want = []int{20, 20, 0}
			}
			if s := shardStocks(t, rdb, 3); s[0] != want[0] || s[1] != want[1] || s[2] != want[2] {
				t.Fatalf("stocks after the sweep: %v, want %v", s, want)
			}
			if got := redisUnits(t, c, 3); got != 40 {
				t.Fatalf("after the sweep: %d units, want 40", got)
			}
			if n, _ := c.SweepLends(ctx, shardedTemplate, 3, 0); n != 0 {
				t.Fatalf("second sweep settled %d", n)
			}
		})
	}
}

// TestBorrowsRaceWithClaimsAndSweeps: 8 shards, 16 workers taking units (one claim = one unit
// off their shard, borrowing when it is empty) while a sweep cancels every open lend as soon as it
// sees it: units taken + units left is the stock, exactly, and nothing stays open.
func TestBorrowsRaceWithClaimsAndSweeps(t *testing.T) {
	a, _, rdb := newAdmin(t, "borrow_race")
	c, ctx := a.cache, context.Background()
	const n, stock = 8, 2000
	seedShards(t, rdb, SplitStock(stock, n)...)
	var mu sync.Mutex
	taken, borrowed := 0, 0
	stop := make(chan struct{})
	var sweeps sync.WaitGroup
	sweeps.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := c.SweepLends(ctx, shardedTemplate, n, 0); err != nil {
				t.Error(err)
				return
			}
		}
	})
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			shard := w % n
			k := keys.StockShard(shardedTemplate, shard, n).Stock()
			for empty := 0; empty < 3; {
				if left, _ := rdb.HIncrBy(ctx, k, "stock", -1).Result(); left >= 0 {
					mu.Lock()
					taken++
					mu.Unlock()
					continue
				}
				rdb.HIncrBy(ctx, k, "stock", 1)
				got, err := c.Borrow(ctx, shardedTemplate, shard, n)
				if err != nil {
					t.Error(err)
					return
				}
				if got == 0 {
					empty++
				}
				mu.Lock()
				borrowed += got
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(stop)
	sweeps.Wait()
	if _, err := c.SweepLends(ctx, shardedTemplate, n, 0); err != nil {
		t.Fatal(err)
	}
	left := redisUnits(t, c, n)
	if taken+left != stock || borrowed == 0 {
		t.Fatalf("taken %d + left %d = %d, want %d; borrowed %d", taken, left, taken+left, stock, borrowed)
	}
	if open, _ := c.OpenLendUnits(ctx, shardedTemplate, n); open != 0 {
		t.Fatalf("%d units in open lends after the last sweep", open)
	}
}
