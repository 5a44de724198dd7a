package template

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/coupontemplatelog"
	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

var (
	merchantA = coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}
	merchantB = coupon.Actor{UserID: 2, Role: coupon.RoleMerchant, Shop: 2002}
	platform  = coupon.Actor{UserID: 9, Role: coupon.RolePlatform}
)

func newAdmin(t *testing.T, name string) (*Admin, *ent.Client, redis.UniversalClient) {
	t.Helper()
	db, _, _ := testutil.MySQL(t, "template_admin_"+name)
	rdb := testutil.Redis(t, "template")
	cache := NewCache(rdb, db, CacheOptions{})
	return NewAdmin(db, rdb, cache), db, rdb
}

func createTemplate(t *testing.T, a *Admin, actor coupon.Actor, mutate func(*CreateInput)) *coupon.Template {
	t.Helper()
	in := validThresholdInput()
	in.ValidStartTime, in.ValidEndTime = time.Now().Add(-time.Minute), time.Now().Add(48*time.Hour)
	if mutate != nil {
		mutate(&in)
	}
	tpl, err := a.Create(context.Background(), actor, in)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return tpl
}

func auditCount(t *testing.T, db *ent.Client, id int64, action string) int {
	t.Helper()
	n, err := db.CouponTemplateLog.Query().Where(coupontemplatelog.TemplateID(id), coupontemplatelog.Action(action)).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCreateStoresStockShards: a template keeps the stockShards it was created with, and one
// created without takes the Admin's default (COUPON_STOCK_SHARDS_DEFAULT), on the row and in the
// cache.
func TestCreateStoresStockShards(t *testing.T) {
	a, db, _ := newAdmin(t, "shards")
	ctx := context.Background()
	plain := createTemplate(t, a, merchantA, nil)
	a.DefaultStockShards = 3
	byDefault := createTemplate(t, a, merchantA, nil)
	eight := 8
	explicit := createTemplate(t, a, merchantA, func(in *CreateInput) { in.StockShards = &eight })
	for _, c := range []struct {
		tpl  *coupon.Template
		want int
	}{{plain, 1}, {byDefault, 3}, {explicit, 8}} {
		row, err := db.CouponTemplate.Get(ctx, c.tpl.ID)
		if err != nil {
			t.Fatal(err)
		}
		cached, err := a.cache.Get(ctx, c.tpl.ID)
		if err != nil {
			t.Fatal(err)
		}
		if row.StockShards != c.want || c.tpl.StockShards() != c.want || cached.StockShards() != c.want {
			t.Errorf("template %d: row %d, created %d, cached %d stock shards; want %d", c.tpl.ID, row.StockShards,
				c.tpl.StockShards(), cached.StockShards(), c.want)
		}
	}
}

func TestCreateWritesRowAuditCacheAndBloom(t *testing.T) {
	a, db, rdb := newAdmin(t, "create")
	ctx := context.Background()
	tpl := createTemplate(t, a, merchantA, nil)

	row, err := db.CouponTemplate.Get(ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if row.ShopNumber != 1001 || row.Stock != 1000 || row.TotalStock != 1000 || row.CreatedBy != 1 {
		t.Fatalf("row = %+v", row)
	}
	if got := auditCount(t, db, tpl.ID, ActionCreate); got != 1 {
		t.Fatalf("create audit rows = %d, want 1", got)
	}
	if stock, _ := rdb.HGet(ctx, keys.Template(tpl.ID), "stock").Int(); stock != 1000 {
		t.Fatalf("cached stock = %d, want 1000", stock)
	}
	// Even with the cache gone, the template is found (Bloom has it, rebuild from DB).
	if err := rdb.Del(ctx, keys.Template(tpl.ID)).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := a.Get(ctx, nil, tpl.ID)
	if err != nil || got.ID != tpl.ID || got.Name != tpl.Name {
		t.Fatalf("Get after cache loss = %+v, %v", got, err)
	}
}

func TestCreateRefusesAnotherSourceThanTheRoles(t *testing.T) {
	a, _, _ := newAdmin(t, "source")
	in := validThresholdInput()
	in.ValidStartTime, in.ValidEndTime = time.Now(), time.Now().Add(time.Hour)
	in.Source = coupontemplate.SourcePLATFORM
	_, err := a.Create(context.Background(), merchantA, in)
	if errs := coupon.AsErrors(err); len(errs) != 1 || errs[0].Field[0] != "source" {
		t.Fatalf("err = %v, want a source field error", err)
	}
}

func TestConcurrentIncreasesSumExactlyInDatabaseAndCache(t *testing.T) {
	a, db, rdb := newAdmin(t, "increase")
	ctx := context.Background()
	for _, cached := range []bool{true, false} {
		tpl := createTemplate(t, a, merchantA, nil)
		if !cached {
			rdb.Del(ctx, keys.Template(tpl.ID))
		}
		const workers, amount = 25, 7
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := a.IncreaseStock(ctx, merchantA, tpl.ID, amount); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("increase: %v", err)
		}
		want := 1000 + workers*amount
		row, _ := db.CouponTemplate.Get(ctx, tpl.ID)
		if row.Stock != want || row.TotalStock != want || row.Version != workers {
			t.Fatalf("cached=%v: DB stock=%d total=%d version=%d, want %d/%d/%d", cached, row.Stock, row.TotalStock, row.Version, want, want, workers)
		}
		got, err := a.Get(ctx, nil, tpl.ID)
		if err != nil || got.Stock != want || got.TotalStock != want {
			t.Fatalf("cached=%v: cache stock=%d total=%d (%v), want %d", cached, got.Stock, got.TotalStock, err, want)
		}
		if n := auditCount(t, db, tpl.ID, ActionIncreaseStock); n != workers {
			t.Fatalf("audit rows = %d, want %d", n, workers)
		}
	}
}

func TestIncreaseStockRules(t *testing.T) {
	a, db, _ := newAdmin(t, "increase_rules")
	ctx := context.Background()
	tpl := createTemplate(t, a, merchantA, nil)

	if _, err := a.IncreaseStock(ctx, merchantB, tpl.ID, 5); !errors.Is(err, coupon.ErrNotFound) {
		t.Fatalf("other shop: err = %v, want NOT_FOUND", err)
	}
	for _, bad := range []int{0, -1, MaxTemplateStock + 1} {
		if errs := coupon.AsErrors(func() error { _, err := a.IncreaseStock(ctx, merchantA, tpl.ID, bad); return err }()); len(errs) == 0 || errs[0].Code != coupon.CodeInvalidInput {
			t.Fatalf("amount %d: errs = %v, want INVALID_INPUT", bad, errs)
		}
	}
	if _, err := a.IncreaseStock(ctx, merchantA, tpl.ID, MaxTemplateStock-999); coupon.AsErrors(err) == nil {
		t.Fatalf("total above the maximum: err = %v, want INVALID_INPUT", err)
	}
	if _, err := a.Terminate(ctx, merchantA, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.IncreaseStock(ctx, merchantA, tpl.ID, 5); coupon.AsErrors(err) == nil || coupon.AsErrors(err)[0].Code != coupon.CodeEnded {
		t.Fatalf("ended: err = %v, want ENDED", err)
	}
	row, _ := db.CouponTemplate.Get(ctx, tpl.ID)
	if row.Stock != 1000 {
		t.Fatalf("refused increases changed the stock to %d", row.Stock)
	}
}

func TestTerminateEndsTemplateInDatabaseAndCache(t *testing.T) {
	a, db, rdb := newAdmin(t, "terminate")
	ctx := context.Background()
	tpl := createTemplate(t, a, merchantA, nil)

	if _, err := a.Terminate(ctx, merchantB, tpl.ID); !errors.Is(err, coupon.ErrNotFound) {
		t.Fatalf("other shop: err = %v, want NOT_FOUND", err)
	}
	got, err := a.Terminate(ctx, merchantA, tpl.ID)
	if err != nil || got.Status() != coupon.StatusEnded {
		t.Fatalf("terminate = %+v, %v", got, err)
	}
	if s := rdb.HGet(ctx, keys.Template(tpl.ID), "status").Val(); s != "ENDED" {
		t.Fatalf("cached status = %q, want ENDED", s)
	}
	row, _ := db.CouponTemplate.Get(ctx, tpl.ID)
	if row.Status != coupontemplate.StatusENDED {
		t.Fatalf("DB status = %s", row.Status)
	}
	if _, err := a.Terminate(ctx, merchantA, tpl.ID); err != nil {
		t.Fatalf("second terminate: %v", err)
	}
	if n := auditCount(t, db, tpl.ID, ActionTerminate); n != 1 {
		t.Fatalf("terminate audit rows = %d, want 1 (the second call changes nothing)", n)
	}
}

func TestGetAndListAreScopedToTheShop(t *testing.T) {
	a, _, _ := newAdmin(t, "list")
	ctx := context.Background()
	var mine []*coupon.Template
	for i := range 5 {
		mine = append(mine, createTemplate(t, a, merchantA, func(in *CreateInput) {
			if i%2 == 0 {
				in.Name = "Spring sale"
			}
		}))
	}
	theirs := createTemplate(t, a, merchantB, nil)

	if _, err := a.Get(ctx, &merchantA, theirs.ID); !errors.Is(err, coupon.ErrNotFound) {
		t.Fatalf("merchant A sees shop B's template: %v", err)
	}
	for _, who := range []*coupon.Actor{nil, {UserID: 5, Role: coupon.RoleUser}, &platform, &merchantB} {
		if _, err := a.Get(ctx, who, theirs.ID); err != nil {
			t.Fatalf("%v cannot see the template: %v", who, err)
		}
	}

	page, err := a.List(ctx, merchantA, Filter{}, coupon.Keyset{Size: 2})
	if err != nil || page.Total != 5 || len(page.Items) != 2 || !page.HasMore || page.Items[0].ID != mine[4].ID {
		t.Fatalf("first page = %+v, %v", page, err)
	}
	var seen int
	for after := int64(0); ; {
		p, err := a.List(ctx, merchantA, Filter{}, coupon.Keyset{Size: 2, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, tpl := range p.Items {
			if tpl.ShopNumber != merchantA.Shop {
				t.Fatalf("merchant A listed shop %d", tpl.ShopNumber)
			}
			seen++
		}
		if !p.HasMore {
			break
		}
		after = p.Items[len(p.Items)-1].ID
	}
	// Backward (last/before): the oldest two, newest first, then the two above them.
	back, err := a.List(ctx, merchantA, Filter{}, coupon.Keyset{Size: 2, Backward: true})
	if err != nil || len(back.Items) != 2 || !back.HasMore || back.Items[0].ID != mine[1].ID || back.Items[1].ID != mine[0].ID {
		t.Fatalf("last page backward = %+v, %v; want %d, %d", back, err, mine[1].ID, mine[0].ID)
	}
	back, err = a.List(ctx, merchantA, Filter{}, coupon.Keyset{Size: 2, Backward: true, Before: mine[1].ID})
	if err != nil || len(back.Items) != 2 || !back.HasMore || back.Items[0].ID != mine[3].ID || back.Items[1].ID != mine[2].ID {
		t.Fatalf("page before %d = %+v, %v", mine[1].ID, back, err)
	}
	if seen != 5 {
		t.Fatalf("paged through %d templates, want 5", seen)
	}
	name := "spring"
	if p, _ := a.List(ctx, merchantA, Filter{NameContains: &name}, coupon.Keyset{Size: 10}); p.Total != 3 {
		t.Fatalf("name filter total = %d, want 3", p.Total)
	}
	if _, err := a.Terminate(ctx, merchantA, mine[0].ID); err != nil {
		t.Fatal(err)
	}
	ended := coupon.StatusEnded
	if p, _ := a.List(ctx, merchantA, Filter{Status: &ended}, coupon.Keyset{Size: 10}); p.Total != 1 || p.Items[0].ID != mine[0].ID {
		t.Fatalf("ENDED filter = %+v", p)
	}
	shop := merchantB.Shop
	if p, _ := a.List(ctx, platform, Filter{ShopNumber: &shop}, coupon.Keyset{Size: 10}); p.Total != 1 {
		t.Fatalf("platform shop filter total = %d, want 1", p.Total)
	}
	if p, _ := a.List(ctx, merchantA, Filter{ShopNumber: &shop}, coupon.Keyset{Size: 10}); p.Total != 5 {
		t.Fatalf("a merchant's shop filter must be ignored: total = %d", p.Total)
	}
}

// A client that disconnects at any moment of a stock increase or a termination leaves the database
// and the cache agreeing: the change runs to its end (or is undone whole) once begun.
func TestAdministrationSurvivesClientDisconnects(t *testing.T) {
	a, db, rdb := newAdmin(t, "disconnects")
	bg := context.Background()
	tpl := createTemplate(t, a, merchantA, func(in *CreateInput) { in.Stock = 10 })
	for i := range 40 {
		ctx, cancel := context.WithTimeout(bg, time.Duration(i%8)*250*time.Microsecond)
		_, _ = a.IncreaseStock(ctx, merchantA, tpl.ID, 5)
		cancel()
		row, err := db.CouponTemplate.Get(bg, tpl.ID)
		if err != nil {
			t.Fatal(err)
		}
		cached, err := rdb.HGet(bg, keys.Template(tpl.ID), "stock").Int()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		if err == nil && cached != row.Stock {
			t.Fatalf("after increase %d: cache stock %d, database %d", i, cached, row.Stock)
		}
	}
	ctx, cancel := context.WithTimeout(bg, 300*time.Microsecond)
	_, _ = a.Terminate(ctx, merchantA, tpl.ID)
	cancel()
	row, _ := db.CouponTemplate.Get(bg, tpl.ID)
	got, err := a.cache.Get(bg, tpl.ID)
	if err != nil || got.Stored != row.Status {
		t.Fatalf("after terminate: cache %+v (%v), database %s", got, err, row.Status)
	}
}
