package lua

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	stockLend    = mustLoad("stock_lend.lua")
	stockReceive = mustLoad("stock_receive.lua")
	stockSettle  = mustLoad("stock_settle.lua")
)

// A borrow moves units from one stock shard of a template (the lender) to another (the
// borrower) in three single-slot steps, each idempotent, each a script: StockLend on the lender's
// slot takes the units out of its sub-stock into its lend journal; StockReceive on the borrower's
// slot decides once whether they join the borrower's sub-stock (received) or go back (cancelled:
// the borrower's hash was gone, or the sweep cancelled a lend a crash left open); StockSettle on the
// lender's slot closes the journal entry, giving cancelled units back. At every instant
// Σ sub-stocks + Σ units of journal entries not received is what Redis may still hand out.

// LenderKeys are a lending shard's keys, all on its slot (package coupon/keys: Shard.Stock,
// Shard.Lends, Shard.Lent).
type LenderKeys struct {
	Stock   string // the shard's stock hash
	Lends   string // the shard's lend journal
	Settled string // the lend's settled mark
}

// BorrowerKeys are a borrowing shard's keys, on its slot (Shard.Stock, Shard.Receipt).
type BorrowerKeys struct {
	Stock   string // the shard's stock hash
	Receipt string // the lend's receipt
}

// ErrLendSettled is StockLend's answer to a lend id that was lent and settled before.
var ErrLendSettled = errors.New("lua: StockLend: the lend is settled")

// StockLend runs stock_lend.lua: it lends up to want units of the lender's sub-stock (at most half
// of it, rounded up) under lendID to shard borrower, journaling them in the same step. It returns
// the units lent and the generation of the lender's hash (pass it to StockReceive): 0 units when
// the lender has none (or no complete hash); a replay of an open lend returns its units and
// generation again and takes nothing more; a replay of a settled one returns ErrLendSettled.
func StockLend(ctx context.Context, rdb redis.Scripter, k LenderKeys, lendID string, borrower, want int, now time.Time) (units int, gen string, err error) {
	if lendID == "" || want < 1 || borrower < 0 {
		return 0, "", errors.New("lua: StockLend: a lend id, a borrower and want ≥ 1 are required")
	}
	raw, err := stockLend.Run(ctx, rdb, []string{k.Stock, k.Lends, k.Settled}, lendID, borrower, want, now.UnixMilli()).Slice()
	if err != nil {
		return 0, "", err
	}
	if len(raw) != 2 {
		return 0, "", fmt.Errorf("lua: StockLend: %d values", len(raw))
	}
	n, _ := raw[0].(int64)
	gen, _ = raw[1].(string)
	if n < 0 {
		return 0, "", ErrLendSettled
	}
	return int(n), gen, nil
}

// StockReceive runs stock_receive.lua for a lend of units of generation gen: with cancel false it
// adds them to the borrower's sub-stock when its complete hash of that generation exists, else (or
// with cancel true) it cancels the lend. The first call decides, and every later one answers that decision: received is true when
// the units are in the borrower's stock. receiptTTL must outlast any retry of the lend.
func StockReceive(ctx context.Context, rdb redis.Scripter, k BorrowerKeys, units int, gen string, cancel bool, receiptTTL time.Duration) (received bool, err error) {
	if units < 1 {
		return false, errors.New("lua: StockReceive: units must be ≥ 1")
	}
	mode := "receive"
	if cancel {
		mode = "cancel"
	}
	return stockReceive.runFlag(ctx, rdb, []string{k.Stock, k.Receipt}, units, mode, ceilSeconds(receiptTTL), gen)
}

// StockSettle runs stock_settle.lua: it closes the lender's journal entry of lendID with the
// outcome StockReceive decided, giving the units back to the lender's sub-stock when they were not
// received, and marks the lend settled for settledTTL. It returns the units settled, 0 when the
// entry was settled before (a replay changes nothing).
func StockSettle(ctx context.Context, rdb redis.Scripter, k LenderKeys, lendID string, received bool, settledTTL time.Duration) (int, error) {
	outcome := "0"
	if received {
		outcome = "1"
	}
	n, err := stockSettle.Run(ctx, rdb, []string{k.Stock, k.Lends, k.Settled}, lendID, outcome, ceilSeconds(settledTTL)).Int64()
	return int(n), err
}

// OpenLend is one entry of a lend journal: a lend not settled yet.
type OpenLend struct {
	ID       string
	Units    int
	Borrower int       // the borrowing shard's index
	At       time.Time // when it was lent
	Gen      string    // the generation of the lender's hash it was lent from
}

// OpenLends reads a lend journal (LenderKeys.Lends); malformed entries are skipped.
func OpenLends(ctx context.Context, rdb redis.Cmdable, lends string) ([]OpenLend, error) {
	m, err := rdb.HGetAll(ctx, lends).Result()
	if err != nil {
		return nil, err
	}
	out := make([]OpenLend, 0, len(m))
	for id, v := range m {
		parts := strings.SplitN(v, ":", 4) // "units:borrower:ms:gen", as stock_lend.lua writes it
		if len(parts) < 3 {
			continue
		}
		gen := ""
		if len(parts) == 4 {
			gen = parts[3]
		}
		units, err1 := strconv.Atoi(parts[0])
		borrower, err2 := strconv.Atoi(parts[1])
		ms, err3 := strconv.ParseInt(parts[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || units < 1 {
			continue
		}
		out = append(out, OpenLend{ID: id, Units: units, Borrower: borrower, At: time.UnixMilli(ms), Gen: gen})
	}
	return out, nil
}
