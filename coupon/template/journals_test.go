package template

import (
	"testing"
	"time"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/lua"
)

// A rebuild of a template with 4 stock shards counts the rows of a distribution batch in flight on
// every shard: a batch deducted on two shards (journaled on each, no coupon in MySQL yet) holds
// its accepted rows' units (not the row refused at the limit), and once one shard's after-commit
// has run, only the other shard's.
func TestLoadCountsDistributionRowsInFlightOnEveryShard(t *testing.T) {
	const shards, task = 4, 77
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, func(c *ent.CouponTemplateCreate) { c.SetStockShards(shards) }) // stock 100, limit 3
	e.ready(t, tpl.ID)
	if err := e.cache.Put(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	users := map[int][]int64{} // shard → its users among the first ids
	for u := int64(1); len(users[1]) < 3 || len(users[3]) < 2; u++ {
		if s := keys.UserShard(u, shards); (s == 1 && len(users[1]) < 3) || (s == 3 && len(users[3]) < 2) {
			users[s] = append(users[s], u)
		}
	}
	full := users[3][1] // at the limit already: refused, holds no unit
	if err := e.rdb.HSet(e.ctx, keys.UserStock(tpl.ID, full, shards).ClaimCounter(full), "n", 3).Err(); err != nil {
		t.Fatal(err)
	}
	deduct := func(shard int) keys.Shard {
		t.Helper()
		sh := keys.StockShard(tpl.ID, shard, shards)
		var rows []lua.DistributeRow
		for i, u := range users[shard] {
			rows = append(rows, lua.DistributeRow{Row: 10*shard + i, UserID: u})
		}
		res, err := lua.Distribute(e.ctx, e.rdb, lua.DistributeKeys{
			Template: sh.Stock(), Journal: sh.DistributionJournal(task), Journals: sh.DistributionJournals(), Claims: sh.ClaimCounter,
		}, 0, time.Now(), rows, false)
		if err != nil || res.Status != lua.DistributeDeducted {
			t.Fatalf("deduct on shard %d: %+v %v", shard, res, err)
		}
		return sh
	}
	one, _ := deduct(1), deduct(3)
	load := func(want int, batches int) {
		t.Helper()
		got, err := e.cache.load(e.ctx, tpl.ID)
		if err != nil || got.Stock != want {
			t.Fatalf("rebuilt stock %v, %v; want %d", got, err, want)
		}
		in, err := e.cache.distributions(e.ctx, tpl.ID, tpl.StockShards())
		if err != nil || len(in) != batches {
			t.Fatalf("batches in flight %+v, %v; want %d", in, err, batches)
		}
	}
	load(100-4, 2) // 3 rows on shard 1, 1 of 2 on shard 3
	done, err := lua.DistributeAfterCommit(e.ctx, e.rdb, lua.AfterCommitKeys{
		Template: one.Stock(), Journal: one.DistributionJournal(task), Journals: one.DistributionJournals(),
	}, 0, 0, false)
	if err != nil || !done {
		t.Fatalf("after-commit on shard 1: %v %v", done, err)
	}
	load(100-1, 1) // only shard 3's row now (the test wrote no coupons for shard 1's)
}
