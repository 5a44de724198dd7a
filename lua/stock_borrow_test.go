package lua

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

// Two stock shards of template 9, on two slots (the tags keys.ShardTag would build look alike).
var (
	lender   = LenderKeys{Stock: ns + "{t9/0/a}:tpl", Lends: ns + "{t9/0/a}:lends"}
	borrower = BorrowerKeys{Stock: ns + "{t9/1/b}:tpl"}
)

func lenderOf(lendID string) LenderKeys {
	k := lender
	k.Settled = ns + "{t9/0/a}:lent:" + lendID
	return k
}

func borrowerOf(lendID string) BorrowerKeys {
	k := borrower
	k.Receipt = ns + "{t9/1/b}:recv:" + lendID
	return k
}

func shardHashes(t *testing.T, rdb redis.UniversalClient, lenderStock, borrowerStock int) {
	t.Helper()
	ctx := context.Background()
	for k, v := range map[string]int{lender.Stock: lenderStock, borrower.Stock: borrowerStock} {
		if err := rdb.HSet(ctx, k, "stock", v, "data", "{}").Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// units is what Redis may still hand out: both sub-stocks plus the journal's lends not received.
func units(t *testing.T, rdb redis.UniversalClient) int {
	t.Helper()
	ctx := context.Background()
	l, _ := rdb.HGet(ctx, lender.Stock, "stock").Int()
	b, _ := rdb.HGet(ctx, borrower.Stock, "stock").Int()
	open, err := OpenLends(ctx, rdb, lender.Lends)
	if err != nil {
		t.Fatal(err)
	}
	sum := l + b
	for _, o := range open {
		if rdb.Get(ctx, borrowerOf(o.ID).Receipt).Val() != "1" {
			sum += o.Units
		}
	}
	return sum
}

// TestStockBorrowStepsConserveUnits: lend → receive → settle moves half the lender's stock to the
// borrower; after every step, and after a replay of every step, the units are the same 10.
func TestStockBorrowStepsConserveUnits(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	shardHashes(t, rdb, 9, 0)
	rdb.HSet(ctx, borrower.Stock, "stock", 1)
	now := time.Now()
	check := func(step string, lender, borrower int) {
		t.Helper()
		if got := units(t, rdb); got != 10 {
			t.Fatalf("%s: %d units, want 10", step, got)
		}
		l, _ := rdb.HGet(ctx, lenderOf("").Stock, "stock").Int()
		b, _ := rdb.HGet(ctx, borrowerOf("").Stock, "stock").Int()
		if l != lender || b != borrower {
			t.Fatalf("%s: stocks %d and %d, want %d and %d", step, l, b, lender, borrower)
		}
	}
	for range 2 { // the second round replays each step
		if n, _, err := StockLend(ctx, rdb, lenderOf("L1"), "L1", 1, 100, now); err != nil || n != 5 {
			t.Fatalf("lend: %d, %v; want 5 (half of 9, rounded up)", n, err)
		}
		check("lent", 4, 1)
	}
	for range 2 {
		if ok, err := StockReceive(ctx, rdb, borrowerOf("L1"), 5, "", false, time.Hour); err != nil || !ok {
			t.Fatalf("receive: %v, %v", ok, err)
		}
		check("received", 4, 6)
	}
	if n, err := StockSettle(ctx, rdb, lenderOf("L1"), "L1", true, time.Hour); err != nil || n != 5 {
		t.Fatalf("settle: %d, %v", n, err)
	}
	check("settled", 4, 6)
	if n, err := StockSettle(ctx, rdb, lenderOf("L1"), "L1", true, time.Hour); err != nil || n != 0 {
		t.Fatalf("settle replayed: %d, %v; want 0", n, err)
	}
	if _, _, err := StockLend(ctx, rdb, lenderOf("L1"), "L1", 1, 100, now); !errors.Is(err, ErrLendSettled) {
		t.Fatalf("lend replayed after settle: %v, want ErrLendSettled", err)
	}
	check("replays", 4, 6)
	if open, _ := OpenLends(ctx, rdb, lender.Lends); len(open) != 0 {
		t.Fatalf("open lends after settle: %v", open)
	}
}

// TestStockBorrowCancel: a lend cancelled (by the sweep) before its receive never reaches the
// borrower, even when the borrower's receive comes later, and its settle gives it back; a borrower
// without a complete hash cancels; an empty lender lends nothing.
func TestStockBorrowCancel(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	shardHashes(t, rdb, 6, 0)
	now := time.Now()
	if n, _, _ := StockLend(ctx, rdb, lenderOf("L2"), "L2", 1, 2, now); n != 2 {
		t.Fatalf("lend: %d, want 2 (want caps it)", n)
	}
	if ok, err := StockReceive(ctx, rdb, borrowerOf("L2"), 2, "", true, time.Hour); err != nil || ok {
		t.Fatalf("cancel: %v, %v", ok, err)
	}
	if ok, _ := StockReceive(ctx, rdb, borrowerOf("L2"), 2, "", false, time.Hour); ok {
		t.Fatal("a receive after the cancel received")
	}
	if got := units(t, rdb); got != 6 {
		t.Fatalf("cancelled, not settled: %d units, want 6", got)
	}
	if n, _ := StockSettle(ctx, rdb, lenderOf("L2"), "L2", false, time.Hour); n != 2 {
		t.Fatalf("settle: %d, want 2", n)
	}
	if l, _ := rdb.HGet(ctx, lender.Stock, "stock").Int(); l != 6 || units(t, rdb) != 6 {
		t.Fatalf("after the give-back: lender %d, units %d; want 6, 6", l, units(t, rdb))
	}

	rdb.HDel(ctx, borrower.Stock, "data") // evicted, then partly rewritten: never write into it
	if n, _, _ := StockLend(ctx, rdb, lenderOf("L3"), "L3", 1, 10, now); n != 3 {
		t.Fatalf("lend: %d, want 3", n)
	}
	if ok, _ := StockReceive(ctx, rdb, borrowerOf("L3"), 3, "", false, time.Hour); ok {
		t.Fatal("received into an incomplete hash")
	}
	if b, _ := rdb.HGet(ctx, borrower.Stock, "stock").Int(); b != 0 {
		t.Fatalf("borrower stock %d, want 0", b)
	}
	StockSettle(ctx, rdb, lenderOf("L3"), "L3", false, time.Hour)

	rdb.HSet(ctx, lender.Stock, "stock", 0)
	if n, _, err := StockLend(ctx, rdb, lenderOf("L4"), "L4", 1, 10, now); err != nil || n != 0 {
		t.Fatalf("empty lender: %d, %v", n, err)
	}
	if open, _ := OpenLends(ctx, rdb, lender.Lends); len(open) != 0 {
		t.Fatalf("an empty lend was journaled: %v", open)
	}
}

// TestStockBorrowRaces: 40 borrows racing with their own cancels (a sweep) and with claims taking
// units from both shards: the units handed out plus the units left are always the start.
func TestStockBorrowRaces(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	shardHashes(t, rdb, 1000, 0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := 0
	for i := range 40 {
		id := "R" + strconv.Itoa(i)
		wg.Go(func() {
			n, gen, err := StockLend(ctx, rdb, lenderOf(id), id, 1, 50, time.Now())
			if err != nil || n == 0 {
				return
			}
			var got bool
			done := make(chan struct{})
			go func() { // the sweep's cancel races with the receive
				defer close(done)
				StockReceive(ctx, rdb, borrowerOf(id), n, gen, i%2 == 0, time.Hour)
			}()
			got, err = StockReceive(ctx, rdb, borrowerOf(id), n, gen, false, time.Hour)
			<-done
			if err != nil {
				t.Error(err)
			}
			if _, err := StockSettle(ctx, rdb, lenderOf(id), id, got, time.Hour); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() { // a claim on either shard
			k := []string{lender.Stock, borrower.Stock}[i%2]
			if left, _ := rdb.HIncrBy(ctx, k, "stock", -1).Result(); left < 0 {
				rdb.HIncrBy(ctx, k, "stock", 1)
				return
			}
			mu.Lock()
			taken++
			mu.Unlock()
		})
	}
	wg.Wait()
	if got := units(t, rdb) + taken; got != 1000 {
		t.Fatalf("left %d + taken %d = %d, want 1000", units(t, rdb), taken, got)
	}
	if open, _ := OpenLends(ctx, rdb, lender.Lends); len(open) != 0 {
		t.Fatalf("open lends after every settle: %d", len(open))
	}
}

// moved is Σ stock + Σ (lent − back − got) over both hashes: what Redis may still hand out, read
// from the hashes alone (the reconciliation's sum).
func moved(t *testing.T, rdb redis.UniversalClient) int {
	t.Helper()
	sum := 0
	for _, k := range []string{lender.Stock, borrower.Stock} {
		v, err := rdb.HMGet(context.Background(), k, "stock", "lent", "back", "got").Result()
		if err != nil {
			t.Fatal(err)
		}
		n := func(i int) int { s, _ := v[i].(string); x, _ := strconv.Atoi(s); return x }
		sum += n(0) + n(1) - n(2) - n(3)
	}
	return sum
}

// TestStockBorrowCountsMoves: after every step of a received borrow and of a cancelled one, the
// hashes' own counts give the units Redis may still hand out (stock + lent − back − got), as the
// journal and receipts do.
func TestStockBorrowCountsMoves(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	shardHashes(t, rdb, 9, 1)
	check := func(step string) {
		t.Helper()
		if got, want := moved(t, rdb), units(t, rdb); got != 10 || want != 10 {
			t.Fatalf("%s: counted %d, journal %d; want 10", step, got, want)
		}
	}
	n, gen, err := StockLend(ctx, rdb, lenderOf("M1"), "M1", 1, 4, time.Now())
	if err != nil || n != 4 {
		t.Fatalf("lend: %d, %v", n, err)
	}
	check("lent")
	ok, err := StockReceive(ctx, rdb, borrowerOf("M1"), n, gen, false, time.Hour)
	if err != nil || !ok {
		t.Fatalf("receive: %v, %v", ok, err)
	}
	check("received")
	StockSettle(ctx, rdb, lenderOf("M1"), "M1", true, time.Hour)
	check("settled")
	n, gen, _ = StockLend(ctx, rdb, lenderOf("M2"), "M2", 1, 2, time.Now())
	check("lent again")
	StockReceive(ctx, rdb, borrowerOf("M2"), n, gen, true, time.Hour)
	check("cancelled")
	StockSettle(ctx, rdb, lenderOf("M2"), "M2", false, time.Hour)
	check("given back")
}

// TestStockBorrowAcrossARebuild: a lend taken from a hash of one generation is neither received
// into nor given back to a hash of another (a cache rebuild rewrote them from the database, which
// counted the lend's units already): the units are counted once.
func TestStockBorrowAcrossARebuild(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	shardHashes(t, rdb, 8, 0)
	rdb.HSet(ctx, lender.Stock, "gen", "g1")
	rdb.HSet(ctx, borrower.Stock, "gen", "g1")
	n, gen, err := StockLend(ctx, rdb, lenderOf("G1"), "G1", 1, 2, time.Now())
	if err != nil || n != 2 || gen != "g1" {
		t.Fatalf("lend: %d %q %v, want 2 of g1", n, gen, err)
	}
	n2, gen2, _ := StockLend(ctx, rdb, lenderOf("G2"), "G2", 1, 2, time.Now())
	// The rebuild: both hashes rewritten with generation g2 and the stock the database gives (8).
	shardHashes(t, rdb, 4, 4)
	rdb.HSet(ctx, lender.Stock, "gen", "g2")
	rdb.HSet(ctx, borrower.Stock, "gen", "g2")
	if ok, err := StockReceive(ctx, rdb, borrowerOf("G1"), n, gen, false, time.Hour); err != nil || ok {
		t.Fatalf("a lend of g1 received into g2: %v, %v", ok, err)
	}
	StockSettle(ctx, rdb, lenderOf("G1"), "G1", false, time.Hour)
	StockReceive(ctx, rdb, borrowerOf("G2"), n2, gen2, true, time.Hour) // the sweep's cancel
	StockSettle(ctx, rdb, lenderOf("G2"), "G2", false, time.Hour)
	l, _ := rdb.HGet(ctx, lender.Stock, "stock").Int()
	b, _ := rdb.HGet(ctx, borrower.Stock, "stock").Int()
	if l != 4 || b != 4 {
		t.Fatalf("after the rebuild: stocks %d and %d, want 4 and 4 (nothing given back or received twice)", l, b)
	}
}
