package template

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/idgen"
	"coupond/lua"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/redis/go-redis/v9"
)

// Stock shards (keys.Shard): a template created with N > 1 stock shards keeps its Redis stock in
// N sub-stocks, plus a reserve in its own hash (stock added later, see put), and a shard whose
// sub-stock is empty borrows units from the reserve or another shard (Borrow), in
// the three single-slot steps of lua.StockLend, lua.StockReceive and lua.StockSettle. A crash
// between two steps leaves a lend open in the lender's journal, and SweepLends settles it. At every
// instant the reserve + Σ sub-stocks + Σ lends not received is what Redis may still hand out.

// Limits of borrowing.
const (
	// borrowChunk is the most units one borrow asks for: enough that a shard under a burst does not
	// borrow for every claim, few enough that a lender keeps most of its stock for its own users
	// (a lender gives at most half of what it has).
	borrowChunk = 64
	// receiptTTL is how long a lend's receipt and settled mark live (keys.ReceiptTTL).
	receiptTTL = keys.ReceiptTTL * time.Second
	// SweepLendsAfter: a lend open this long was left by a crashed or stalled borrower, and
	// SweepLends settles it (a live borrow takes three round trips).
	SweepLendsAfter = 5 * time.Second
	// lastSweepAfter is BorrowLast's shorter bound: before a claim is answered OUT_OF_STOCK, a lend
	// open this long is taken back (a live borrower it cancels only loses that one borrow: the
	// receipt decides once), so units a crashed borrower held are refused for at most this long.
	lastSweepAfter = 500 * time.Millisecond
)

var (
	stockBorrows = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_stock_borrows_total",
		Help: "Units a stock shard received from another shard of its template (lend, receive, settle).",
	})
	lendsSwept = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_stock_lends_swept_total",
		Help: "Lends between stock shards a crash left open, settled by the sweep.",
	})
	shardRemaining = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "coupond_stock_shard_remaining",
		Help: "Stock left in each stock shard of a template with stock shards (shard \"reserve\": the template's own hash), as last observed by its persister's drain.",
	}, []string{"template", "shard"})
	openLends = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "coupond_stock_open_lend_units",
		Help: "Units of a template with stock shards lent between its shards and not received yet, as last observed by its persister's drain.",
	}, []string{"template"})
)

// ObserveShards sets coupond_stock_shard_remaining and coupond_stock_open_lend_units of the
// template's n stock shards from Redis.
func (c *Cache) ObserveShards(ctx context.Context, templateID int64, n int) error {
	stocks, err := c.ShardStocks(ctx, templateID, n)
	if err != nil {
		return err
	}
	open, err := c.OpenLendUnits(ctx, templateID, n)
	if err != nil {
		return err
	}
	reserve, err := c.rdb.HGet(ctx, keys.Template(templateID), "stock").Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	id := strconv.FormatInt(templateID, 10)
	for i, s := range stocks {
		shardRemaining.WithLabelValues(id, strconv.Itoa(i)).Set(float64(s))
	}
	shardRemaining.WithLabelValues(id, "reserve").Set(float64(reserve))
	openLends.WithLabelValues(id).Set(float64(open))
	return nil
}

// SplitStock is how stock is split over n stock shards: stock/n each, the remainder one unit each
// to the first shards, so the shares differ by at most one and sum to stock. n ≤ 1 (or a stock
// below 0, which only a rebuild of an over-accepted hash gives) is one share.
func SplitStock(stock, n int) []int {
	if n <= 1 || stock < 0 {
		return []int{stock}
	}
	out := make([]int, n)
	for i := range out {
		out[i] = stock / n
		if i < stock%n {
			out[i]++
		}
	}
	return out
}

func lenderKeys(s keys.Shard, lendID string) lua.LenderKeys {
	return lua.LenderKeys{Stock: s.Stock(), Lends: s.Lends(), Settled: s.Lent(lendID)}
}

func borrowerKeys(s keys.Shard, lendID string) lua.BorrowerKeys {
	return lua.BorrowerKeys{Stock: s.Stock(), Receipt: s.Receipt(lendID)}
}

// reserve is the lender that is no shard: the template's own hash.
func reserve(templateID int64) keys.Shard { return keys.StockShard(templateID, 0, 1) }

// lendJournals are the shards that may lend to a shard of the template's n: the reserve, then the
// n shards.
func lendJournals(templateID int64, n int) []keys.Shard {
	out := []keys.Shard{reserve(templateID)}
	for i := range n {
		out = append(out, keys.StockShard(templateID, i, n))
	}
	return out
}

// Borrow moves units into the empty sub-stock of shard borrower of the template's n shards: from
// the reserve when it has some, else from the first other shard that has some, trying them from a
// random one on in order (so empty shards do not all ask the same lender first): lend, receive,
// settle. It returns the units the borrower received, 0 when the reserve and every other shard
// answered empty (or the borrower's hash is gone, when the units went back). Concurrent borrows
// of one shard in this process share one. An error leaves at most one lend open, which SweepLends
// settles.
func (c *Cache) Borrow(ctx context.Context, templateID int64, borrower, n int) (int, error) {
	if n < 2 {
		return 0, nil
	}
	v, err, _ := c.group.Do("borrow:"+strconv.FormatInt(templateID, 10)+":"+strconv.Itoa(borrower), func() (any, error) {
		return c.borrow(context.WithoutCancel(ctx), templateID, borrower, n)
	})
	if err != nil {
		return 0, err
	}
	return v.(int), nil
}

// borrow is one Borrow.
func (c *Cache) borrow(ctx context.Context, templateID int64, borrower, n int) (int, error) {
	to := keys.StockShard(templateID, borrower, n)
	first := rand.IntN(n - 1)
	lenders := []keys.Shard{reserve(templateID)}
	for k := range n - 1 {
		lenders = append(lenders, keys.StockShard(templateID, (borrower+1+(first+k)%(n-1))%n, n))
	}
	for _, from := range lenders {
		lendID := strconv.FormatInt(idgen.Next(), 10)
		units, gen, err := lua.StockLend(ctx, c.rdb, lenderKeys(from, lendID), lendID, borrower, borrowChunk, time.Now())
		if err != nil {
			return 0, fmt.Errorf("lend from %s: %w", from.Tag(), err)
		}
		if units == 0 {
			continue
		}
		if err := c.borrowStep("lent"); err != nil {
			return 0, err
		}
		received, err := lua.StockReceive(ctx, c.rdb, borrowerKeys(to, lendID), units, gen, false, receiptTTL)
		if err != nil {
			return 0, fmt.Errorf("receive lend %s: %w", lendID, err)
		}
		if err := c.borrowStep("received"); err != nil {
			return 0, err
		}
		if _, err := lua.StockSettle(ctx, c.rdb, lenderKeys(from, lendID), lendID, received, receiptTTL); err != nil {
			return 0, fmt.Errorf("settle lend %s: %w", lendID, err)
		}
		if !received {
			return 0, nil // the borrower's hash is gone: a claim on it rebuilds the cache first
		}
		stockBorrows.Add(float64(units))
		return units, nil
	}
	return 0, nil
}

// Waiting for units in transit: a borrow that finds nothing while lends are between their lend
// and receive steps (another shard's borrow in flight) looks again transitWait later, up to
// transitTries times.
const (
	transitWait  = 2 * time.Millisecond
	transitTries = 50
)

// BorrowLast is a borrow for shard borrower of the template's n that Borrow answered with nothing:
// units in lends open for lastSweepAfter (a crashed borrower's) go back first (SweepLends), and
// units in transit between two other shards (a borrow between its lend and receive steps) are
// waited for; it returns the units borrowed then, 0 when Redis holds none anywhere.
func (c *Cache) BorrowLast(ctx context.Context, templateID int64, borrower, n int) (int, error) {
	if _, err := c.SweepLends(ctx, templateID, n, lastSweepAfter); err != nil {
		return 0, err
	}
	for try := 0; try < transitTries; try++ {
		got, err := c.Borrow(ctx, templateID, borrower, n)
		if err != nil || got > 0 {
			return got, err
		}
		open, err := c.OpenLendUnits(ctx, templateID, n)
		if err != nil || open == 0 {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(transitWait):
		}
	}
	return 0, nil
}

// borrowStep calls the test hook after a borrow step ("lent", "received"); an error abandons the
// borrow there, as a crash would.
func (c *Cache) borrowStep(name string) error {
	if c.onBorrowStep != nil {
		return c.onBorrowStep(name)
	}
	return nil
}

// SweepLends settles the lends of the template's n shards open for longer than after: a lend
// whose borrower received it is closed; one it did not is cancelled on the borrower's slot (so a
// borrower still running cannot receive it any more) and its units go back to the lender. It
// returns how many lends it settled. Safe to run at any time, concurrently with borrows and other
// sweeps: every step is idempotent and the receipt decides once.
func (c *Cache) SweepLends(ctx context.Context, templateID int64, n int, after time.Duration) (int, error) {
	settled := 0
	for _, from := range lendJournals(templateID, n) {
		open, err := lua.OpenLends(ctx, c.rdb, from.Lends())
		if err != nil {
			return settled, fmt.Errorf("read lends of %s: %w", from.Tag(), err)
		}
		for _, l := range open {
			if time.Since(l.At) < after || l.Borrower < 0 || l.Borrower >= n {
				continue
			}
			to := keys.StockShard(templateID, l.Borrower, n)
			received, err := lua.StockReceive(ctx, c.rdb, borrowerKeys(to, l.ID), l.Units, l.Gen, true, receiptTTL)
			if err != nil {
				return settled, fmt.Errorf("cancel lend %s: %w", l.ID, err)
			}
			units, err := lua.StockSettle(ctx, c.rdb, lenderKeys(from, l.ID), l.ID, received, receiptTTL)
			if err != nil {
				return settled, fmt.Errorf("settle lend %s: %w", l.ID, err)
			}
			if units > 0 {
				settled++
				lendsSwept.Inc()
			}
		}
	}
	return settled, nil
}

// OpenLendUnits is the units of the template's n shards lent and not received yet: with the
// reserve and the sub-stocks, what Redis may still hand out.
func (c *Cache) OpenLendUnits(ctx context.Context, templateID int64, n int) (int, error) {
	total := 0
	for _, s := range lendJournals(templateID, n) {
		open, err := lua.OpenLends(ctx, c.rdb, s.Lends())
		if err != nil {
			return 0, err
		}
		for _, l := range open {
			if l.Borrower < 0 || l.Borrower >= n {
				continue
			}
			v, err := c.rdb.Get(ctx, keys.StockShard(templateID, l.Borrower, n).Receipt(l.ID)).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				return 0, err
			}
			if v != "1" {
				total += l.Units
			}
		}
	}
	return total, nil
}

// ShardStocks returns the stock of each of the template's n stock shards (0 for a shard without
// a hash), in one pipelined round trip (one per master on a Redis Cluster).
func (c *Cache) ShardStocks(ctx context.Context, templateID int64, n int) ([]int, error) {
	pipe := c.rdb.Pipeline()
	cmds := make([]*redis.StringCmd, n)
	for i := range n {
		cmds[i] = pipe.HGet(ctx, keys.StockShard(templateID, i, n).Stock(), "stock")
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read stock shards of %d: %w", templateID, err)
	}
	out := make([]int, n)
	for i, cmd := range cmds {
		out[i], _ = cmd.Int()
	}
	return out, nil
}

// shardsComplete returns how many of the template's n shard hashes are complete (have data), with
// their stocks (0 for a missing one), in one pipelined round trip (one per master on a Redis
// Cluster).
func (c *Cache) shardsComplete(ctx context.Context, templateID int64, n int) (stocks []int, complete int, err error) {
	pipe := c.rdb.Pipeline()
	has := make([]*redis.BoolCmd, n)
	cmds := make([]*redis.StringCmd, n)
	for i := range n {
		k := keys.StockShard(templateID, i, n).Stock()
		has[i] = pipe.HExists(ctx, k, "data")
		cmds[i] = pipe.HGet(ctx, k, "stock")
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, fmt.Errorf("read stock shards of %d: %w", templateID, err)
	}
	stocks = make([]int, n)
	for i := range n {
		stocks[i], _ = cmds[i].Int()
		if has[i].Val() {
			complete++
		}
	}
	return stocks, complete, nil
}

// freezeShards deletes the hashes of the template's n stock shards and its own hash, the reserve
// (nothing with one shard): no claim, distribution batch or lend takes a unit from them any more,
// receipts cancel, give-backs and settled lends find no hash to add to, and a stock increase
// cancels the rebuild (lua.TemplateAddStock deletes the lock when it finds no hash). Every unit
// they held is then either in MySQL's stock or held by a claim in an outbox or a distribution
// journal, which a rebuild reads after this.
func (c *Cache) freezeShards(ctx context.Context, templateID int64, n int) error {
	if n <= 1 {
		return nil
	}
	pipe := c.rdb.Pipeline() // one DEL per key: the hashes are on different slots
	pipe.Del(ctx, keys.Template(templateID))
	for i := range n {
		pipe.Del(ctx, keys.StockShard(templateID, i, n).Stock())
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("freeze the stock shards of %d: %w", templateID, err)
	}
	return nil
}

// shardsOf is the template's StockShards as its row says (a template's shards never change), or
// coupon.ErrNotFound.
func (c *Cache) shardsOf(ctx context.Context, templateID int64) (int, error) {
	n, err := c.db.CouponTemplate.Query().Where(coupontemplate.ID(templateID)).Select(coupontemplate.FieldStockShards).Int(ctx)
	if ent.IsNotFound(err) {
		return 0, coupon.ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("stock shards of %d: %w", templateID, err)
	}
	return max(n, 1), nil
}

// stockReadTries bounds RedisStock's reads while borrows run between them.
const stockReadTries = 5

// RedisStock is what Redis may still hand out of the template's n stock shards (n > 1): the
// reserve, the sub-stocks and the units lent and not received yet (lua.StockCounts), summed at one
// consistent instant. The hashes are read twice, one pass after the other; when no hash shows a
// borrow step between its two reads, the first pass is a consistent cut (a step seen in one hash's
// read and not in another's would fall between that hash's two reads). cached is false when a
// hash is not complete; ok is false when borrows ran between every pair of passes tried.
func (c *Cache) RedisStock(ctx context.Context, templateID int64, n int) (stock int, cached, ok bool, err error) {
	hashes := []string{keys.Template(templateID)}
	for i := range n {
		hashes = append(hashes, keys.StockShard(templateID, i, n).Stock())
	}
	first, err := lua.ReadStockCounts(ctx, c.rdb, hashes)
	for try := 0; err == nil && try < stockReadTries; try++ {
		var again []lua.StockCounts
		if again, err = lua.ReadStockCounts(ctx, c.rdb, hashes); err != nil {
			break
		}
		if slices.EqualFunc(first, again, lua.StockCounts.SameMoves) {
			sum, cached := lua.SumAvailable(first)
			return int(sum), cached, true, nil
		}
		first = again
	}
	if err != nil {
		return 0, false, false, fmt.Errorf("read the stock of %d: %w", templateID, err)
	}
	return 0, false, false, nil
}
