package template

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/schematype"
	"coupond/testutil"

	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"
)

// cacheEnv is a fresh MySQL database and Redis database with one Cache over them.
type cacheEnv struct {
	ctx   context.Context
	dsn   string
	db    *ent.Client
	rdb   redis.UniversalClient
	cache *Cache
	loads *atomic.Int64 // database loads of cache
}

func newCacheEnv(t *testing.T, opts CacheOptions) *cacheEnv {
	t.Helper()
	db, _, dsn := testutil.MySQL(t, "template_cache")
	rdb := testutil.Redis(t, "template")
	e := &cacheEnv{ctx: context.Background(), dsn: dsn, db: db, rdb: rdb}
	e.cache, e.loads = e.newCache(opts)
	return e
}

// newCache returns another Cache over the same stores (another server instance) and the
// counter of its database loads; the loads still go to the real database.
func (e *cacheEnv) newCache(opts CacheOptions) (*Cache, *atomic.Int64) {
	c := NewCache(e.rdb, e.db, opts)
	n := new(atomic.Int64)
	load := c.load
	c.load = func(ctx context.Context, id int64) (*coupon.Template, error) {
		n.Add(1)
		return load(ctx, id)
	}
	return c, n
}

// insert writes a template row and returns it as read back (ACTIVE, claim window from an hour ago to two hours ahead unless
// mutate says otherwise) without touching Redis.
func (e *cacheEnv) insert(t *testing.T, mutate func(*ent.CouponTemplateCreate)) *coupon.Template {
	t.Helper()
	now := time.Now().UTC()
	amount := decimal.RequireFromString("5.50")
	c := e.db.CouponTemplate.Create().
		SetShopNumber(1001).SetName("cache test").
		SetSource(coupontemplate.SourceSHOP).SetTarget(coupontemplate.TargetSHOP_WIDE).
		SetType(coupontemplate.TypeFIXED_OFF).
		SetValidStartTime(now.Add(-time.Hour)).SetValidEndTime(now.Add(2 * time.Hour)).
		SetTotalStock(100).SetStock(100).
		SetReceiveRule(schematype.ReceiveRule{LimitPerPerson: 3, UsageInstructions: "any order"}).
		SetConsumeRule(schematype.ConsumeRule{DiscountAmount: &amount}).
		SetCreatedBy(7)
	if mutate != nil {
		mutate(c)
	}
	row, err := c.Save(e.ctx)
	if err != nil {
		t.Fatalf("insert template: %v", err)
	}
	if row, err = e.db.CouponTemplate.Get(e.ctx, row.ID); err != nil { // as stored: milliseconds
		t.Fatal(err)
	}
	return coupon.TemplateFromRow(row)
}

// ready makes the Bloom filter complete (empty database) and adds ids to it.
func (e *cacheEnv) ready(t *testing.T, ids ...int64) {
	t.Helper()
	if err := e.cache.EnsureBloom(e.ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := e.cache.BloomAdd(e.ctx, id); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *cacheEnv) exists(t *testing.T, key string) bool {
	t.Helper()
	n, err := e.rdb.Exists(e.ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func sameTemplate(t *testing.T, got, want *coupon.Template) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("template\n got %s\nwant %s", g, w)
	}
}

func TestPutWritesHashFieldsAndTTLAtEnd(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	end := time.Now().Add(3 * time.Hour).Truncate(time.Second).Add(500 * time.Millisecond).UTC()
	tpl := e.insert(t, func(c *ent.CouponTemplateCreate) { c.SetValidEndTime(end).SetVersion(4) })
	e.rdb.Set(e.ctx, keys.TemplateNull(tpl.ID), "1", time.Hour)

	if err := e.cache.Put(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	h := e.rdb.HGetAll(e.ctx, keys.Template(tpl.ID)).Val()
	want := map[string]string{
		"stock": "100", "total": "100", "status": "ACTIVE", "limit": "3", "shop": "1001", "ver": "4",
		"start": strconv.FormatInt(tpl.ValidStart.UnixMilli(), 10),
		"end":   strconv.FormatInt(end.UnixMilli(), 10),
	}
	for k, v := range want {
		if h[k] != v {
			t.Errorf("field %s = %q, want %q", k, h[k], v)
		}
	}
	if len(h) != len(want)+1 || h["data"] == "" {
		t.Errorf("hash has fields %v, want %d plus data", h, len(want))
	}
	if at := e.rdb.ExpireTime(e.ctx, keys.Template(tpl.ID)).Val(); at != time.Duration(end.Unix()+1)*time.Second {
		t.Errorf("expires at %v, want the end rounded up to unix %d", at, end.Unix()+1)
	}
	if e.exists(t, keys.TemplateNull(tpl.ID)) {
		t.Error("Put left the null-value key")
	}
}

func TestPutOfEndedTemplateExpiresAfterEndedTTL(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	past := time.Now().Add(-time.Minute)
	tpl := e.insert(t, func(c *ent.CouponTemplateCreate) {
		c.SetValidStartTime(past.Add(-time.Hour)).SetValidEndTime(past)
	})
	if err := e.cache.Put(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	ttl := e.rdb.TTL(e.ctx, keys.Template(tpl.ID)).Val()
	if ttl < 9*time.Minute || ttl > 10*time.Minute {
		t.Errorf("TTL of an ended template = %v, want about 10m", ttl)
	}
}

func TestPutKeepsSmallerCachedStock(t *testing.T) { // claims deducted in Redis may not be in MySQL yet
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	if err := e.cache.Put(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	e.rdb.HIncrBy(e.ctx, keys.Template(tpl.ID), "stock", -30) // claims not yet in the database
	if err := e.cache.Put(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	got, err := e.cache.Get(e.ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Stock != 70 {
		t.Errorf("stock after re-put = %d, want 70 (the smaller)", got.Stock)
	}
}

func TestAddStockAndMarkEndedNeverCreateAHash(t *testing.T) { // a partial hash breaks later reads
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	cached, err := e.cache.AddStock(e.ctx, tpl.ID, 10)
	if err != nil || cached {
		t.Fatalf("AddStock without hash = %v, %v; want false", cached, err)
	}
	cached, err = e.cache.MarkEnded(e.ctx, tpl.ID, 1)
	if err != nil || cached {
		t.Fatalf("MarkEnded without hash = %v, %v; want false", cached, err)
	}
	if e.exists(t, keys.Template(tpl.ID)) {
		t.Fatal("a missing hash was created")
	}
}

func TestAddStockAndMarkEndedUpdateTheCachedTemplate(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	if err := e.cache.Put(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	if cached, err := e.cache.AddStock(e.ctx, tpl.ID, 25); err != nil || !cached {
		t.Fatalf("AddStock = %v, %v", cached, err)
	}
	if cached, err := e.cache.MarkEnded(e.ctx, tpl.ID, 1); err != nil || !cached {
		t.Fatalf("MarkEnded = %v, %v", cached, err)
	}
	got, err := e.cache.Get(e.ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Stock != 125 || got.TotalStock != 125 || got.Version != 2 {
		t.Errorf("stock %d total %d version %d, want 125 125 2", got.Stock, got.TotalStock, got.Version)
	}
	if got.Stored != coupontemplate.StatusENDED || got.StatusAt(time.Now()) != coupon.StatusEnded {
		t.Errorf("status %s (%s), want ENDED", got.Stored, got.StatusAt(time.Now()))
	}
	if e.loads.Load() != 0 {
		t.Errorf("%d database loads, want 0", e.loads.Load())
	}
}

func TestConcurrentAddStockSumsExactly(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	if err := e.cache.Put(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if _, err := e.cache.AddStock(e.ctx, tpl.ID, i+1); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := e.cache.Get(e.ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	const added = 50 * 51 / 2
	if got.Stock != 100+added || got.TotalStock != 100+added {
		t.Errorf("stock %d total %d, want %d", got.Stock, got.TotalStock, 100+added)
	}
}

func TestInvalidateMakesNextGetRebuild(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	e.ready(t, tpl.ID)
	if err := e.cache.Put(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	if err := e.db.CouponTemplate.UpdateOneID(tpl.ID).SetName("renamed").Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.cache.Invalidate(e.ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	got, err := e.cache.Get(e.ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "renamed" || e.loads.Load() != 1 {
		t.Errorf("name %q after %d loads, want the database's after 1", got.Name, e.loads.Load())
	}
}

func TestCorruptHashIsAnError(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	e.rdb.HSet(e.ctx, keys.Template(42), "data", "{", "stock", "1")
	if _, err := e.cache.Get(e.ctx, 42); err == nil || errors.Is(err, coupon.ErrNotFound) {
		t.Errorf("Get of a corrupt hash = %v, want an error other than not found", err)
	}
}
