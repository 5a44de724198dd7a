package claim_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent/usercoupon"
	"coupond/lua"
	"coupond/services"
	"coupond/testutil"
	"coupond/testutil/stack"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// counterValue reads a counter of the default registry by name.
func counterValue(name string) float64 {
	families, _ := prometheus.DefaultGatherer.Gather()
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}

// answer is what one claim was told: its redemption id, or its refusal code.
type answer struct {
	rid  string
	code coupon.Code
}

func answerOf(t *testing.T, red *claim.Redemption, err error) answer {
	t.Helper()
	if err == nil {
		return answer{rid: red.ID}
	}
	if errs := coupon.AsErrors(err); errs != nil {
		return answer{code: errs[0].Code}
	}
	t.Errorf("claim: %v", err)
	return answer{code: "ERROR"}
}

// TestHotTemplateStockShards: a template with 8 stock shards, stock 10,000, limit 2, claimed
// 50,000 times by 20,000 users from 64 workers, every claim with a requestId: exactly 10,000
// accepted, nobody over 2, the shards borrowed from one another, every retry of a requestId
// answers its first answer, and after persistence MySQL holds 10,000 coupons, the stock consumed,
// with nothing left in Redis's shards, reserve or open lends.
func TestHotTemplateStockShards(t *testing.T) {
	const shards, stock, limit, users, claims, workers = 8, 10_000, 2, 20_000, 50_000, 64
	s := stack.New(t, "claim", "hot", stack.Options{Config: services.Config{
		Redeem:  claim.Config{TemplateRate: 1e9, UserRate: 1000},
		Persist: claim.PersistConfig{BatchSize: 500, UserShards: 2},
	}})
	n := shards
	tpl := s.Template(t, stock, limit, func(in *template.CreateInput) { in.StockShards = &n })
	if tpl.StockShards() != shards {
		t.Fatalf("template has %d stock shards", tpl.StockShards())
	}
	if got, _ := s.Redis.HGet(s.Ctx, keys.Template(tpl.ID), "stock").Int(); got != 0 {
		t.Fatalf("the template's own hash holds %d of the stock, want 0 (all in the shards)", got)
	}
	live := *tpl
	live.Stock = -1
	if err := s.Templates.LiveStocks(s.Ctx, []*coupon.Template{&live}); err != nil || live.Stock != stock {
		t.Fatalf("live stock (the stats' and the list's) %d, %v; want %d summed over the shards", live.Stock, err, stock)
	}
	if got, err := s.Cache.Get(s.Ctx, tpl.ID); err != nil || got.Stock != stock {
		t.Fatalf("cached template's stock: %v, %v", got, err)
	}
	borrowsBefore := counterValue("coupond_stock_borrows_total")
	answers := make([]answer, claims)
	var next atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	checks := make(chan int, 1)
	go func() { // the reconciliation beside the burst: every check that compares Redis balances
		compared := 0
		defer func() { checks <- compared }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			rep, err := s.Reconciler.Check(s.Ctx, stack.Merchant, tpl.ID)
			if err != nil {
				t.Error(err)
				return
			}
			if rep.RedisChecked() {
				compared++
			}
			if !rep.Balanced {
				t.Errorf("books during the burst: %v", rep.Drift)
				return
			}
		}
	}()
	for range workers {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < claims; i = next.Add(1) - 1 {
				u := int64(1_000_000_000_000 + (i%users)<<22) // snowflake-like ids: low bits zero
				red, err := s.Redeemer.Redeem(s.Ctx, u, tpl.ID, fmt.Sprintf("r%d", i))
				answers[i] = answerOf(t, red, err)
			}
		})
	}
	wg.Wait()
	close(stop)
	if n := <-checks; n == 0 {
		t.Error("no reconciliation during the burst compared Redis")
	}
	accepted := 0
	for _, a := range answers {
		if a.rid != "" {
			accepted++
		} else if a.code != coupon.CodeOutOfStock && a.code != coupon.CodeLimitReached {
			t.Fatalf("refused with %s", a.code)
		}
	}
	if accepted != stock {
		t.Fatalf("accepted %d claims, want exactly %d", accepted, stock)
	}
	borrows := counterValue("coupond_stock_borrows_total") - borrowsBefore
	if borrows == 0 {
		t.Fatal("no shard borrowed")
	}
	// every 25th claim again, with its requestId: the first answer
	for i := 0; i < claims; i += 25 {
		u := int64(1_000_000_000_000 + (int64(i)%users)<<22)
		red, err := s.Redeemer.Redeem(s.Ctx, u, tpl.ID, fmt.Sprintf("r%d", i))
		if got := answerOf(t, red, err); got != answers[i] {
			t.Fatalf("retry of claim %d answered %+v, first %+v", i, got, answers[i])
		}
	}
	drainAll(t, s, tpl.ID)
	coupons, row, _ := mysqlBooks(t, s, tpl.ID, limit)
	if len(coupons) != stock || row.Stock != 0 || row.Issued != stock {
		t.Fatalf("MySQL: %d coupons, stock %d, issued %d; want %d, 0, %d", len(coupons), row.Stock, row.Issued, stock, stock)
	}
	for _, uc := range coupons {
		if !strings.Contains(uc.RedemptionID, fmt.Sprintf(".%d-", shards)) {
			t.Fatalf("redemption id %q does not name its shard", uc.RedemptionID)
		}
	}
	left, err := s.Cache.ShardStocks(s.Ctx, tpl.ID, shards)
	if err != nil {
		t.Fatal(err)
	}
	open, err := s.Cache.OpenLendUnits(s.Ctx, tpl.ID, shards)
	if err != nil {
		t.Fatal(err)
	}
	reserve, _ := s.Redis.HGet(s.Ctx, keys.Template(tpl.ID), "stock").Int()
	sum := reserve + open
	for _, l := range left {
		sum += l
	}
	if sum != 0 {
		t.Fatalf("Redis still holds %d units (shards %v, reserve %d, open lends %d)", sum, left, reserve, open)
	}
	rep, err := s.Reconciler.Check(s.Ctx, stack.Merchant, tpl.ID)
	if err != nil || !rep.Balanced || !rep.RedisChecked() || rep.RedisStock == nil || *rep.RedisStock != 0 {
		t.Fatalf("reconciliation after persistence: %+v, %v", rep, err)
	}
	t.Logf("%d claims, %d accepted, %.0f units borrowed", claims, accepted, borrows)
}

// TestHotTemplateSpreadsOverMasters: on a Redis Cluster of three masters, a template with three
// stock shards (COUPON_STOCK_SHARDS_DEFAULT=3, here the Admin's default) takes its claims on all
// three: each master runs at least 15 % of the accepted claims' scripts, and the books are exact.
func TestHotTemplateSpreadsOverMasters(t *testing.T) {
	if len(testutil.RedisCluster()) == 0 {
		t.Skip("needs the Redis Cluster (scripts/test.sh --redis-cluster)")
	}
	const stock, claims = 3000, 3000
	s := stack.New(t, "claim", "spread", stack.Options{Config: services.Config{
		Redeem: claim.Config{TemplateRate: 1e9}, StockShards: 3,
	}})
	tpl := s.Template(t, stock, 1, nil)
	cluster, ok := s.Redis.(*redis.ClusterClient)
	if !ok {
		t.Fatalf("not a cluster client: %T", s.Redis)
	}
	master := map[int]string{}
	for i := range 3 {
		c, err := cluster.MasterForKey(s.Ctx, keys.StockShard(tpl.ID, i, 3).Stock())
		if err != nil {
			t.Fatal(err)
		}
		master[i] = c.Options().Addr
	}
	perMaster := map[string]int{}
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < claims; i = next.Add(1) - 1 {
				u := 7_000_000 + i
				if _, err := s.Redeemer.Redeem(s.Ctx, u, tpl.ID, ""); err != nil {
					if !errors.Is(err, coupon.ErrRateLimited) {
						t.Error(err)
					}
					continue
				}
				mu.Lock()
				perMaster[master[keys.UserShard(u, 3)]]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	total := 0
	for _, n := range perMaster {
		total += n
	}
	if total != stock || len(perMaster) != 3 {
		t.Fatalf("accepted %d on %d masters: %v", total, len(perMaster), perMaster)
	}
	for addr, n := range perMaster {
		if n*100 < total*15 {
			t.Fatalf("master %s ran %d of %d claims (< 15 %%): %v", addr, n, total, perMaster)
		}
	}
	if _, err := s.Persister.Drain(s.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	row, err := s.DB.CouponTemplate.Get(s.Ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(tpl.ID)).Count(s.Ctx); err != nil || n != stock || row.Stock != 0 {
		t.Fatalf("MySQL: %d coupons (%v), stock %d; want %d, 0", n, err, row.Stock, stock)
	}
	t.Logf("claims per master: %v", perMaster)
}

// TestHotTemplateOpenLendComesBack: a lend a crashed borrower left open (lent, never received)
// holds units no shard shows; claims that find nothing to borrow sweep it back first, so every unit
// is claimed and OUT_OF_STOCK comes only after the last one.
func TestHotTemplateOpenLendComesBack(t *testing.T) {
	s := stack.New(t, "claim", "hot_open", stack.Options{Config: services.Config{Redeem: claim.Config{TemplateRate: 1e9}}})
	n := 2
	tpl := s.Template(t, 10, 1, func(in *template.CreateInput) { in.StockShards = &n })
	from := keys.StockShard(tpl.ID, 1, 2)
	lent, _, err := lua.StockLend(s.Ctx, s.Redis, lua.LenderKeys{Stock: from.Stock(), Lends: from.Lends(), Settled: from.Lent("x")},
		"x", 0, 64, time.Now().Add(-time.Minute))
	if err != nil || lent != 3 {
		t.Fatalf("lend: %d, %v", lent, err)
	}
	accepted := 0
	for u := int64(1); u <= 40; u++ {
		_, err := s.Redeemer.Redeem(s.Ctx, u, tpl.ID, "")
		switch {
		case err == nil:
			accepted++
		case coupon.AsErrors(err) != nil && coupon.AsErrors(err)[0].Code == coupon.CodeOutOfStock:
		default:
			t.Fatal(err)
		}
	}
	if accepted != 10 {
		t.Fatalf("accepted %d claims, want all 10 units (3 of them in the open lend)", accepted)
	}
	if open, err := s.Cache.OpenLendUnits(s.Ctx, tpl.ID, 2); err != nil || open != 0 {
		t.Fatalf("open lend units %d, %v", open, err)
	}
}

// TestHotTemplateRebuildRecountsTheShards: a template with 4 stock shards, 60 claims in its
// outboxes, a lend between two shards in flight, loses one shard's hash (evicted). The next claim
// on that shard rebuilds the template: every hash frozen, the stock recounted from MySQL and the
// outboxes, re-split under a new generation, so the lend in flight is neither received nor given
// back afterwards. Then claims take exactly the stock, no more, and the books balance.
func TestHotTemplateRebuildRecountsTheShards(t *testing.T) {
	const shards, stock = 4, 200
	s := stack.New(t, "claim", "hot_rebuild", stack.Options{Config: services.Config{Redeem: claim.Config{TemplateRate: 1e9}}})
	n := shards
	tpl := s.Template(t, stock, 1, func(in *template.CreateInput) { in.StockShards = &n })
	user := func(i int) int64 { return int64(1_000_000_000_000 + int64(i)<<22) }
	claimOne := func(i int) error {
		_, err := s.Redeemer.Redeem(s.Ctx, user(i), tpl.ID, "")
		return err
	}
	for i := range 60 {
		if err := claimOne(i); err != nil {
			t.Fatal(err)
		}
	}
	from, to := keys.StockShard(tpl.ID, 1, shards), keys.StockShard(tpl.ID, 2, shards)
	lent, gen, err := lua.StockLend(s.Ctx, s.Redis, lua.LenderKeys{Stock: from.Stock(), Lends: from.Lends(), Settled: from.Lent("inflight")},
		"inflight", 2, 64, time.Now().Add(-time.Minute))
	if err != nil || lent == 0 {
		t.Fatalf("lend: %d, %v", lent, err)
	}
	if err := s.Redis.Del(s.Ctx, keys.StockShard(tpl.ID, 3, shards).Stock()).Err(); err != nil { // evicted
		t.Fatal(err)
	}
	i := 60
	for ; keys.UserShard(user(i), shards) != 3; i++ {
	}
	if err := claimOne(i); err != nil { // on the lost shard: rebuilds, then claims
		t.Fatalf("claim on the lost shard: %v", err)
	}
	got, err := s.Cache.Get(s.Ctx, tpl.ID)
	if err != nil || got.Stock != stock-61 {
		t.Fatalf("rebuilt stock %v, %v; want %d (the lend's units counted once)", got, err, stock-61)
	}
	// The borrower of the lend in flight comes back late: its units are not received, nor given back.
	if ok, err := lua.StockReceive(s.Ctx, s.Redis, lua.BorrowerKeys{Stock: to.Stock(), Receipt: to.Receipt("inflight")}, lent, gen, false, time.Hour); err != nil || ok {
		t.Fatalf("the lend of the old generation was received: %v, %v", ok, err)
	}
	if _, err := s.Cache.SweepLends(s.Ctx, tpl.ID, shards, 0); err != nil {
		t.Fatal(err)
	}
	accepted := 61
	for u := i + 1; u < i+1+2*stock; u++ {
		err := claimOne(u)
		switch {
		case err == nil:
			accepted++
		case coupon.AsErrors(err) != nil && coupon.AsErrors(err)[0].Code == coupon.CodeOutOfStock:
		default:
			t.Fatal(err)
		}
	}
	if accepted != stock {
		t.Fatalf("accepted %d claims in all, want exactly the stock %d", accepted, stock)
	}
	drainAll(t, s, tpl.ID)
	row, err := s.DB.CouponTemplate.Get(s.Ctx, tpl.ID)
	if err != nil || row.Stock != 0 || row.Issued != stock {
		t.Fatalf("MySQL after persistence: %+v, %v", row, err)
	}
	rep, err := s.Reconciler.Check(s.Ctx, stack.Merchant, tpl.ID)
	if err != nil || !rep.Balanced || !rep.RedisChecked() {
		t.Fatalf("reconciliation: %+v, %v", rep, err)
	}
}
