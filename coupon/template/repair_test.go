package template

import (
	"testing"

	"coupond/coupon"
	"coupond/coupon/keys"
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
