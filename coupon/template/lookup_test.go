package template

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/idgen"
	"coupond/lua"
	"coupond/store"

	"github.com/redis/go-redis/v9"
)

func TestGetHashHitDoesNotQueryTheDatabase(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	if err := e.cache.Put(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	// Gone from the database and the Bloom filter: only the hash can answer.
	if err := e.db.CouponTemplate.DeleteOneID(tpl.ID).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.ready(t)
	got, err := e.cache.Get(e.ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameTemplate(t, got, tpl)
	if e.loads.Load() != 0 {
		t.Errorf("%d database loads on a hash hit, want 0", e.loads.Load())
	}
}

func TestGetBloomMissAnswersNotFoundAndLeavesTheFilter(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	e.ready(t, idgen.Next())
	tpl := e.insert(t, nil) // exists, but is not in the ready filter: the filter alone answers
	before := e.rdb.Get(e.ctx, keys.Bloom()).Val()

	for range 3 {
		if _, err := e.cache.Get(e.ctx, tpl.ID); !errors.Is(err, coupon.ErrNotFound) {
			t.Fatalf("Get = %v, want coupon.ErrNotFound", err)
		}
	}
	if e.loads.Load() != 0 {
		t.Errorf("%d database loads on a Bloom miss, want 0", e.loads.Load())
	}
	if e.rdb.Get(e.ctx, keys.Bloom()).Val() != before {
		t.Error("a Bloom miss changed the filter")
	}
	if e.exists(t, keys.TemplateNull(tpl.ID)) || e.exists(t, keys.Template(tpl.ID)) {
		t.Error("a Bloom miss wrote a null-value key or a hash")
	}
}

func TestGetNullValueHitAnswersNotFound(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil) // exists, but marked absent: the null-value key alone answers
	e.ready(t, tpl.ID)
	e.rdb.Set(e.ctx, keys.TemplateNull(tpl.ID), "1", time.Minute)
	if _, err := e.cache.Get(e.ctx, tpl.ID); !errors.Is(err, coupon.ErrNotFound) {
		t.Fatalf("Get = %v, want coupon.ErrNotFound", err)
	}
	if e.loads.Load() != 0 {
		t.Errorf("%d database loads on a null-value hit, want 0", e.loads.Load())
	}
}

func TestGetRebuildsFromTheDatabase(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, func(c *ent.CouponTemplateCreate) { c.SetGoods("sku-1").SetTarget(coupontemplate.TargetPRODUCT) })
	e.ready(t, tpl.ID)

	got, err := e.cache.Get(e.ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameTemplate(t, got, tpl)
	if e.loads.Load() != 1 {
		t.Fatalf("%d database loads, want 1", e.loads.Load())
	}
	h := e.rdb.HGetAll(e.ctx, keys.Template(tpl.ID)).Val()
	if h["stock"] != "100" || h["status"] != "ACTIVE" || h["limit"] != "3" || h["data"] == "" {
		t.Errorf("cached hash = %v", h)
	}
	if at, want := e.rdb.ExpireTime(e.ctx, keys.Template(tpl.ID)).Val(), e.cache.expireAt(tpl, time.Now()); at != time.Duration(want)*time.Second {
		t.Errorf("hash expires at %v, want unix %d (the template's end)", at, want)
	}
	if e.exists(t, keys.TemplateLock(tpl.ID)) {
		t.Error("the rebuild lock was not released")
	}
	again, err := e.cache.Get(e.ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameTemplate(t, again, tpl)
	if e.loads.Load() != 1 {
		t.Errorf("%d database loads after a second Get, want still 1", e.loads.Load())
	}
}

func TestGetOfAbsentIDWritesTheNullValueKey(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	id := idgen.Next()
	e.ready(t, id) // a Bloom false positive, or a template whose insert failed

	for range 3 {
		if _, err := e.cache.Get(e.ctx, id); !errors.Is(err, coupon.ErrNotFound) {
			t.Fatalf("Get = %v, want coupon.ErrNotFound", err)
		}
	}
	if e.loads.Load() != 1 {
		t.Errorf("%d database loads, want 1 (then the null-value key answers)", e.loads.Load())
	}
	ttl := e.rdb.TTL(e.ctx, keys.TemplateNull(id)).Val()
	if ttl < 29*time.Minute || ttl > 30*time.Minute {
		t.Errorf("null-value key TTL = %v, want about 30m", ttl)
	}
	if e.exists(t, keys.Template(id)) {
		t.Error("an absent id got a hash")
	}
}

func TestPutAfterCreateClearsTheNullValueKey(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	id := idgen.Next()
	e.ready(t, id) // BloomAdd before the insert, as on create
	if _, err := e.cache.Get(e.ctx, id); !errors.Is(err, coupon.ErrNotFound) {
		t.Fatalf("Get before insert = %v, want coupon.ErrNotFound", err)
	}
	tpl := e.insert(t, func(c *ent.CouponTemplateCreate) { c.SetID(id) })
	if err := e.cache.Put(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	got, err := e.cache.Get(e.ctx, id)
	if err != nil {
		t.Fatalf("Get after create = %v", err)
	}
	sameTemplate(t, got, tpl)
}

func TestGetWaitsForAnotherInstancesRebuild(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	e.ready(t, tpl.ID)
	k := templateKeys(tpl.ID)
	e.rdb.Set(e.ctx, k.Lock, "other-instance", time.Minute)

	type result struct {
		t   *coupon.Template
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		got, err := e.cache.Get(e.ctx, tpl.ID)
		done <- result{got, err}
	}()
	time.Sleep(150 * time.Millisecond)
	// The other instance finishes its rebuild: writes under its token, then unlocks.
	fields, err := hashFields(tpl)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := lua.TemplatePut(e.ctx, e.rdb, k, fields, e.cache.expireAt(tpl, time.Now()), "other-instance"); err != nil || !ok {
		t.Fatalf("other instance's put = %v, %v", ok, err)
	}
	if _, err := lua.Unlock(e.ctx, e.rdb, k.Lock, "other-instance"); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	sameTemplate(t, r.t, tpl)
	if time.Since(start) < 150*time.Millisecond {
		t.Error("Get did not wait for the lock holder")
	}
	if e.loads.Load() != 0 {
		t.Errorf("%d database loads while another instance rebuilt, want 0", e.loads.Load())
	}
}

func TestGetRebuildsItselfWhenTheOtherLockExpires(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	e.ready(t, tpl.ID)
	e.rdb.Set(e.ctx, keys.TemplateLock(tpl.ID), "crashed-instance", 100*time.Millisecond)
	got, err := e.cache.Get(e.ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameTemplate(t, got, tpl)
	if e.loads.Load() != 1 {
		t.Errorf("%d database loads, want 1", e.loads.Load())
	}
}

func TestGetGivesUpAfterLockWait(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{LockWait: 200 * time.Millisecond})
	tpl := e.insert(t, nil)
	e.ready(t, tpl.ID)
	e.rdb.Set(e.ctx, keys.TemplateLock(tpl.ID), "stuck-instance", time.Minute)
	start := time.Now()
	_, err := e.cache.Get(e.ctx, tpl.ID)
	if err == nil || errors.Is(err, coupon.ErrNotFound) {
		t.Fatalf("Get = %v, want a timeout error (not not-found)", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 2*time.Second {
		t.Errorf("gave up after %v, want about LockWait", d)
	}
	if e.loads.Load() != 0 {
		t.Errorf("%d database loads, want 0", e.loads.Load())
	}
}

// A change whose cache update finds no hash deletes the rebuild lock: a rebuild that read the row
// before the change cannot cache its stale copy, and reads again.
func TestStaleRebuildIsCancelledByAddStock(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	e.ready(t, tpl.ID)
	read, resume := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	load := e.cache.load
	e.cache.load = func(ctx context.Context, id int64) (*coupon.Template, error) {
		t, err := load(ctx, id)
		if first.CompareAndSwap(false, true) {
			close(read)
			<-resume
		}
		return t, err
	}
	done := make(chan error, 1)
	var got *coupon.Template
	go func() {
		var err error
		got, err = e.cache.Get(e.ctx, tpl.ID)
		done <- err
	}()
	<-read // the rebuild has read stock 100
	if err := e.db.CouponTemplate.UpdateOneID(tpl.ID).AddStock(40).AddTotalStock(40).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	if cached, err := e.cache.AddStock(e.ctx, tpl.ID, 40); err != nil || cached {
		t.Fatalf("AddStock = %v, %v; want not cached", cached, err)
	}
	close(resume)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.Stock != 140 || e.loads.Load() != 2 {
		t.Errorf("stock %d after %d loads, want 140 after 2 (the stale read discarded)", got.Stock, e.loads.Load())
	}
	if s := e.rdb.HGet(e.ctx, keys.Template(tpl.ID), "stock").Val(); s != "140" {
		t.Errorf("cached stock = %s, want 140", s)
	}
}

// An administrative transaction updates the row FOR UPDATE and the cache before it commits; a
// rebuild meanwhile waits for the commit, so it neither caches the old row nor misses the change.
func TestRebuildWaitsForTheAdministrativeTransaction(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	e.ready(t, tpl.ID)
	tx, err := e.db.Tx(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	row, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(tpl.ID)).ForUpdate().Only(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := row.Update().AddStock(10).AddTotalStock(10).AddVersion(1).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	if cached, err := e.cache.AddStock(e.ctx, tpl.ID, 10); err != nil || cached {
		t.Fatalf("AddStock = %v, %v; want not cached", cached, err)
	}
	done := make(chan *coupon.Template, 1)
	go func() {
		got, err := e.cache.Get(e.ctx, tpl.ID)
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	select {
	case <-done:
		t.Fatal("the rebuild did not wait for the open transaction")
	case <-time.After(200 * time.Millisecond):
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got == nil || got.Stock != 110 || got.Version != 1 {
		t.Errorf("rebuilt %+v, want stock 110 version 1", got)
	}
}

func TestGetReportsRedisAndDatabaseFailures(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)

	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer dead.Close()
	if _, err := NewCache(dead, e.db, CacheOptions{}).Get(e.ctx, tpl.ID); err == nil || errors.Is(err, coupon.ErrNotFound) {
		t.Errorf("Get with Redis down = %v, want an error other than not found", err)
	}

	closed, _, err := store.OpenMySQL(e.dsn, 1)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	e.ready(t, tpl.ID)
	if _, err := NewCache(e.rdb, closed, CacheOptions{}).Get(e.ctx, tpl.ID); err == nil || errors.Is(err, coupon.ErrNotFound) {
		t.Errorf("Get with the database down = %v, want an error other than not found", err)
	}
	if e.exists(t, keys.TemplateNull(tpl.ID)) || e.exists(t, keys.TemplateLock(tpl.ID)) {
		t.Error("a failed load left a null-value key or the lock")
	}
}

// A cache stampede: 100 concurrent lookups of a cold template, spread over 10 instances
// that share Redis, cost one database load.
func TestStampedeOfColdTemplateLoadsOnce(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	e.ready(t, tpl.ID)

	const instances, callers = 10, 100
	var loads [instances]*atomic.Int64
	var caches [instances]*Cache
	for i := range instances {
		caches[i], loads[i] = e.newCache(CacheOptions{})
	}
	startGate := make(chan struct{})
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			<-startGate
			got, err := caches[i%instances].Get(e.ctx, tpl.ID)
			if err != nil {
				t.Error(err)
				return
			}
			if got.ID != tpl.ID || got.Stock != tpl.Stock {
				t.Errorf("got %+v", got)
			}
		})
	}
	close(startGate)
	wg.Wait()
	var total int64
	for _, n := range loads {
		total += n.Load()
	}
	if total != 1 {
		t.Errorf("%d database loads for %d concurrent lookups on %d instances, want 1", total, callers, instances)
	}
}

// Callers waiting for one rebuild do not share the first caller's fate: when it goes away, the
// rebuild goes on and the others get the template.
func TestRebuildOutlivesTheCallerThatStartedIt(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	e.ready(t, tpl.ID)
	load := e.cache.load
	e.cache.load = func(ctx context.Context, id int64) (*coupon.Template, error) {
		time.Sleep(50 * time.Millisecond) // a slow database
		return load(ctx, id)
	}
	first, cancel := context.WithCancel(e.ctx)
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancel() // the first caller disconnects mid-rebuild
	}()
	done := make(chan error, 1)
	go func() { _, err := e.cache.Get(first, tpl.ID); done <- err }()
	time.Sleep(2 * time.Millisecond)
	got, err := e.cache.Get(e.ctx, tpl.ID)
	if err != nil {
		t.Fatalf("second caller: %v", err)
	}
	sameTemplate(t, got, tpl)
	<-done
}
