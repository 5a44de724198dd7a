package template

import (
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/lua"
)

// A Redis restored from an AOF older than MySQL shows more stock than MySQL allows: the start-up
// reconciliation drops that hash (the rebuild is exact) and leaves a hash that shows less alone.
func TestRepairStocksDropsHashesShowingTooMuch(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	high, low := e.insert(t, nil), e.insert(t, nil)
	for _, tpl := range []*coupon.Template{high, low} {
		e.ready(t, tpl.ID)
		if _, err := e.cache.Get(e.ctx, tpl.ID); err != nil {
			t.Fatal(err)
		}
		e.rdb.SAdd(e.ctx, keys.OutboxIndex(), tpl.ID)
	}
	e.rdb.HIncrBy(e.ctx, keys.Template(high.ID), "stock", 3) // claims MySQL holds, forgotten by Redis
	e.rdb.HIncrBy(e.ctx, keys.Template(low.ID), "stock", -2) // claims in flight elsewhere: fine
	fixed, err := e.cache.RepairStocks(e.ctx)
	if err != nil || len(fixed) != 1 || fixed[high.ID] != 3 {
		t.Fatalf("fixed = %v, %v; want {%d: 3}", fixed, err, high.ID)
	}
	if e.exists(t, keys.Template(high.ID)) || !e.exists(t, keys.Template(low.ID)) {
		t.Fatal("want the high hash dropped and the low one kept")
	}
	if got, err := e.cache.Get(e.ctx, high.ID); err != nil || got.Stock != 100 {
		t.Fatalf("rebuilt = %+v, %v; want stock 100", got, err)
	}
}

// A template with stock shards is compared by what all its hashes may still hand out, a lend in
// flight included: a shard showing 3 units too many gets every hash dropped (the next lookup
// rebuilds and re-splits them), one lend in flight alone changes nothing.
func TestRepairStocksSumsTheShards(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	const n = 3
	high, even := e.insert(t, func(c *ent.CouponTemplateCreate) { c.SetStockShards(n) }), e.insert(t, func(c *ent.CouponTemplateCreate) { c.SetStockShards(n) })
	for _, tpl := range []*coupon.Template{high, even} {
		e.ready(t, tpl.ID)
		if got, err := e.cache.Get(e.ctx, tpl.ID); err != nil || got.Stock != 100 {
			t.Fatalf("cached %+v, %v", got, err)
		}
		e.rdb.SAdd(e.ctx, keys.OutboxIndex(), tpl.ID)
	}
	from := keys.StockShard(even.ID, 0, n)
	if lent, _, err := lua.StockLend(e.ctx, e.rdb, lua.LenderKeys{Stock: from.Stock(), Lends: from.Lends(), Settled: from.Lent("x")}, "x", 1, 5, time.Now()); err != nil || lent != 5 {
		t.Fatalf("lend: %d, %v", lent, err)
	}
	e.rdb.HIncrBy(e.ctx, keys.StockShard(high.ID, 2, n).Stock(), "stock", 3)
	fixed, err := e.cache.RepairStocks(e.ctx)
	if err != nil || len(fixed) != 1 || fixed[high.ID] != 3 {
		t.Fatalf("fixed = %v, %v; want {%d: 3}", fixed, err, high.ID)
	}
	for i := range n {
		if e.exists(t, keys.StockShard(high.ID, i, n).Stock()) || !e.exists(t, keys.StockShard(even.ID, i, n).Stock()) {
			t.Fatalf("shard %d: want the high template's hashes dropped and the other's kept", i)
		}
	}
	got, err := e.cache.Get(e.ctx, high.ID)
	if err != nil || got.Stock != 100 {
		t.Fatalf("rebuilt = %+v, %v; want stock 100", got, err)
	}
	if stock, cached, ok, err := e.cache.RedisStock(e.ctx, high.ID, n); err != nil || !cached || !ok || stock != 100 {
		t.Fatalf("rebuilt Redis stock %d (cached %v, ok %v), %v; want 100 in the re-split shards", stock, cached, ok, err)
	}
}
