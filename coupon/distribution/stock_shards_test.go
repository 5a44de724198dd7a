package distribution_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/distribution"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent/usercoupon"
	"coupond/services"
	"coupond/testutil/stack"
)

// shardedTemplate creates a template of stock (split over n stock shards) and limit, then adds
// reserve units to it (kept in the template's own hash, which the shards borrow from).
func shardedTemplate(t *testing.T, s *stack.Stack, n, stock, reserve, limit int) *coupon.Template {
	t.Helper()
	tpl := s.Template(t, stock, limit, func(in *template.CreateInput) { in.StockShards = &n })
	if tpl.StockShards() != n {
		t.Fatalf("template has %d stock shards, want %d", tpl.StockShards(), n)
	}
	if reserve > 0 {
		if _, err := s.Templates.IncreaseStock(s.Ctx, stack.Merchant, tpl.ID, reserve); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Redis.HGet(s.Ctx, keys.Template(tpl.ID), "stock").Int(); got != reserve {
			t.Fatalf("reserve %d, want %d", got, reserve)
		}
	}
	return tpl
}

// usersOf returns n user ids from from on, in order, those of stock shard shard of shards when
// on is true, those of the other shards when it is false, skipping the ids in skip.
func usersOf(from int64, n, shard, shards int, on bool, skip map[int64]bool) []int64 {
	var out []int64
	for u := from; len(out) < n; u++ {
		if (keys.UserShard(u, shards) == shard) == on && !skip[u] {
			out = append(out, u)
		}
	}
	return out
}

// outOfStockLast checks that no row of the task was refused OUT_OF_STOCK in a batch (of batchSize
// data rows, the CSV's first data row being row 2) before the last batch with an issued row: a
// row is refused for want of stock only once the whole template is empty.
func outOfStockLast(t *testing.T, s *stack.Stack, taskID int64, batchSize int) {
	t.Helper()
	coupons, err := s.DB.UserCoupon.Query().Where(usercoupon.RedemptionIDHasPrefix("d" + strconv.FormatInt(taskID, 10) + "-")).All(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	lastIssued := -1
	for _, c := range coupons {
		row, err := strconv.Atoi(c.RedemptionID[strings.IndexByte(c.RedemptionID, '-')+1:])
		if err != nil {
			t.Fatalf("redemption id %q", c.RedemptionID)
		}
		lastIssued = max(lastIssued, (row-2)/batchSize)
	}
	for _, f := range failures(t, s, taskID) {
		num, code, _ := strings.Cut(f, ":")
		row, _ := strconv.Atoi(num)
		if code == distribution.CodeOutOfStock && (row-2)/batchSize < lastIssued {
			t.Fatalf("row %d refused OUT_OF_STOCK in batch %d, but batch %d still issued coupons", row, (row-2)/batchSize, lastIssued)
		}
	}
}

// A file longer than the stock of a template with 4 stock shards (900 split over the shards, 100
// more in the reserve; limit 1), whose users are mostly of one shard (1,100 of shard 0, 360 of the
// others): 10 users already hold their coupon through claims, 30 rows repeat a user. Exactly the
// 990 units left are issued, the shards borrowing from the reserve and one another, the other
// valid rows are OUT_OF_STOCK only once every unit is gone, the repeats DUPLICATE_IN_FILE, the
// claimers LIMIT_REACHED; MySQL's stock and every shard's, the reserve's and the open lends' are
// 0; the counters on the users' shards match MySQL and no journal is left on any shard.
func TestShardedTemplateDistributesItsWholeStock(t *testing.T) {
	const shards, batchSize = 4, 200
	s := newStack(t, "sharded", batchSize)
	tpl := shardedTemplate(t, s, shards, 900, 100, 1)
	claimers := usersOf(1, 10, 2, shards, true, nil)
	skip := map[int64]bool{}
	for _, u := range claimers {
		skip[u] = true
		if _, err := s.Redeemer.Redeem(s.Ctx, u, tpl.ID, ""); err != nil {
			t.Fatal(err)
		}
	}
	for n := 1; n > 0; {
		var err error
		if n, err = s.Persister.Drain(s.Ctx, tpl.ID); err != nil {
			t.Fatal(err)
		}
	}
	others := append(usersOf(1, 1100, 0, shards, true, skip), usersOf(1, 360, 0, shards, false, skip)...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	distinct := append(claimers, others...) // the claimers first, while there is stock (a row past the end of the stock is OUT_OF_STOCK first)
	var list []int64
	for i, u := range distinct { // 1,470 users, a repeat after every 49th: 1,500 rows
		if list = append(list, u); i%49 == 48 {
			list = append(list, distinct[i-10])
		}
	}
	task := run(t, s, create(t, s, tpl.ID, "u.csv", csvOf(list...)).ID)
	accounted(t, s, task, 1500, 990)
	count := map[string]int{}
	for _, f := range failures(t, s, task.ID) {
		_, code, _ := strings.Cut(f, ":")
		count[code]++
	}
	if count[distribution.CodeDuplicateInFile] != 30 || count[distribution.CodeLimitReached] != 10 || count[distribution.CodeOutOfStock] != 470 {
		t.Fatalf("failures by code %v; want 30 DUPLICATE_IN_FILE, 10 LIMIT_REACHED, 470 OUT_OF_STOCK", count)
	}
	outOfStockLast(t, s, task.ID, batchSize)
	held := books(t, s, tpl)
	if len(held) != 1000 {
		t.Fatalf("%d users hold coupons, want 1000 (990 distributed, 10 claimed)", len(held))
	}
	row, err := s.DB.CouponTemplate.Get(s.Ctx, tpl.ID)
	if err != nil || row.Stock != 0 || row.Issued != 1000 {
		t.Fatalf("MySQL: %+v %v; want stock 0, issued 1000", row, err)
	}
	stocks, err := s.Cache.ShardStocks(s.Ctx, tpl.ID, shards)
	if err != nil {
		t.Fatal(err)
	}
	reserve, _ := s.Redis.HGet(s.Ctx, keys.Template(tpl.ID), "stock").Int()
	for i, st := range stocks {
		if st != 0 {
			t.Fatalf("stock shard %d holds %d (all %v, reserve %d), want 0", i, st, stocks, reserve)
		}
	}
	if reserve != 0 {
		t.Fatalf("reserve %d, want 0", reserve)
	}
	if st, _ := s.Redis.HGet(s.Ctx, keys.DailyStats(tpl.ID, keys.StatsDay(time.Now())), keys.StatIssuedDistribution).Int(); st != 990 {
		t.Fatalf("stats issued by distribution %d, want 990", st)
	}
}

// Claims of a template with 4 stock shards (limit 2) run from 16 goroutines while a distribution
// (with a worker, batches of 100) hands it out: 2,500 users listed, claims by users 1,001…5,000,
// and the stock (1,800 in the shards, 200 in the reserve) runs out under both. After both finish
// the books are exact: coupons of both paths = the stock consumed, all of it; Redis holds nothing
// (reserve, shards, open lends), every user's counter on its shard = the coupons MySQL has, nobody
// over the limit, no journal left.
func TestClaimsDuringDistributionToAShardedTemplate(t *testing.T) {
	const shards, stock = 4, 2000
	s := stack.New(t, "dist", "sharded_flash", stack.Options{Worker: true, Kick: true, Config: services.Config{
		Distribution: distribution.Config{BatchSize: 100},
	}})
	tpl := shardedTemplate(t, s, shards, stock-200, 200, 2)
	task := create(t, s, tpl.ID, "u.csv", csvOf(ids(1, 2500)...))

	ctx, stop := context.WithTimeout(s.Ctx, 60*time.Second)
	defer stop()
	for get(t, s, task.ID).ProcessedRows == 0 && ctx.Err() == nil { // the sale opens once the task runs
		time.Sleep(5 * time.Millisecond)
	}
	var wg sync.WaitGroup
	sale := claimDuring(t, s, ctx, stop, &wg, tpl, shards, task.ID)
	claimed, done, total := sale.claimed, sale.task, sale.total
	t.Logf("claims accepted %d (persisted %d), refused %d; distributed %d of 2500 rows", sale.accepted, claimed, sale.refused, done.SuccessCount)
	if claimed+done.SuccessCount != total || total != stock || done.SuccessCount == 0 || claimed == 0 {
		t.Fatalf("claims %d + distributed %d != coupons %d, or not the whole stock %d (or one path issued nothing)", claimed, done.SuccessCount, total, stock)
	}
	if units := redisUnits(t, s, tpl); units != 0 {
		t.Fatalf("Redis still holds %d units", units)
	}
}
