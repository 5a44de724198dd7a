package lua

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// StockCounts is one stock hash's stock and borrow counts (the fields stock_lend, stock_receive
// and stock_settle keep): Lent units ever lent from it, Back units ever given back to it by a
// cancelled lend, Got units ever received, all within generation Gen (a rebuild writes the hashes
// anew with counts 0). Over all the hashes of one template read at one consistent instant,
// Σ Available is what Redis may still hand out: a lend's units are counted by its lender's
// Lent until its borrower's Got or its lender's Back counts them.
type StockCounts struct {
	Cached                 bool // the hash is complete (has data)
	Stock, Lent, Back, Got int64
	Gen                    string
}

// Available is the hash's stock plus the units it lent that are neither received nor given back
// yet, less those it received (the lender counts them until then).
func (s StockCounts) Available() int64 { return s.Stock + s.Lent - s.Back - s.Got }

// SameMoves reports whether s and o show the same borrows: the same generation and counts (their
// stock may differ by claims, which move no unit between hashes).
func (s StockCounts) SameMoves(o StockCounts) bool {
	return s.Cached == o.Cached && s.Gen == o.Gen && s.Lent == o.Lent && s.Back == o.Back && s.Got == o.Got
}

// stockCountFields are the fields of a stock hash StockCounts reads, in that order.
var stockCountFields = []string{"data", "stock", "lent", "back", "got", "gen"}

// ReadStockCounts reads the StockCounts of each stock hash in hashes, pipelined (one round trip
// per master on a Redis Cluster; each hash is read atomically, the set is not).
func ReadStockCounts(ctx context.Context, rdb redis.Cmdable, hashes []string) ([]StockCounts, error) {
	pipe := rdb.Pipeline()
	cmds := make([]*redis.SliceCmd, len(hashes))
	for i, k := range hashes {
		cmds[i] = pipe.HMGet(ctx, k, stockCountFields...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("lua: read stock counts: %w", err)
	}
	out := make([]StockCounts, len(hashes))
	for i, cmd := range cmds {
		out[i] = parseStockCounts(cmd.Val())
	}
	return out, nil
}

// parseStockCounts reads HMGET's answer for stockCountFields (also reconcile_snapshot.lua's).
func parseStockCounts(v []any) StockCounts {
	str := func(i int) string {
		if i >= len(v) {
			return ""
		}
		s, _ := v[i].(string)
		return s
	}
	num := func(i int) int64 { n, _ := strconv.ParseInt(str(i), 10, 64); return n }
	_, cached := v[0].(string)
	return StockCounts{Cached: cached, Stock: num(1), Lent: num(2), Back: num(3), Got: num(4), Gen: str(5)}
}

// SumAvailable is Σ Available of counts read at one consistent instant, and whether every hash
// was complete.
func SumAvailable(counts []StockCounts) (stock int64, cached bool) {
	cached = true
	for _, s := range counts {
		stock += s.Available()
		cached = cached && s.Cached
	}
	return stock, cached
}
