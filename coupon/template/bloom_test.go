package template

import (
	"errors"
	"testing"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/schematype"
	"coupond/idgen"

	"github.com/bits-and-blooms/bloom/v3"
)

func TestBloomIsSizedFromTheOptions(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	m, k := bloom.EstimateParameters(1_000_000, 0.001)
	if e.cache.bloomM != uint64(m) || e.cache.bloomK != k {
		t.Errorf("m=%d k=%d, want %d %d for the defaults", e.cache.bloomM, e.cache.bloomK, m, k)
	}
	small, _ := e.newCache(CacheOptions{BloomExpected: 1000, BloomFPRate: 0.01})
	if small.bloomM >= e.cache.bloomM {
		t.Errorf("m=%d for 1000 ids, want fewer bits than %d", small.bloomM, e.cache.bloomM)
	}
	for _, off := range e.cache.bloomOffsets(idgen.Next()) {
		if off >= e.cache.bloomM {
			t.Fatalf("offset %d outside the filter of %d bits", off, e.cache.bloomM)
		}
	}
}

func TestBloomAddThenMayContain(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{BloomExpected: 10_000})
	e.ready(t)
	ids := make([]int64, 500)
	for i := range ids {
		ids[i] = idgen.Next()
		if err := e.cache.BloomAdd(e.ctx, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		if ok, err := e.cache.bloomMayContain(e.ctx, id); err != nil || !ok {
			t.Fatalf("added id %d: bloomMayContain = %v, %v", id, ok, err)
		}
	}
	falsePositives := 0
	for range 2000 {
		ok, err := e.cache.bloomMayContain(e.ctx, idgen.Next())
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			falsePositives++
		}
	}
	if falsePositives > 20 { // 0.1 % expected: 2 of 2000
		t.Errorf("%d false positives of 2000, want about 2", falsePositives)
	}
}

// A filter that is not ready (key lost, rebuild unfinished) must not hide templates: it lets the
// lookup fall through to the null-value key and the database.
func TestBloomThatIsNotReadyNeverDenies(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	tpl := e.insert(t, nil)
	if err := e.cache.BloomAdd(e.ctx, idgen.Next()); err != nil { // key exists, ready bit unset
		t.Fatal(err)
	}
	got, err := e.cache.Get(e.ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameTemplate(t, got, tpl)
}

func TestEnsureBloomRebuildsOnlyWhenMissing(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	// More rows than one page, so the rebuild reads several pages.
	rows := make([]*ent.CouponTemplateCreate, 0, bloomPage+5)
	first := e.insert(t, nil)
	for range bloomPage + 5 {
		c := e.db.CouponTemplate.Create().
			SetShopNumber(1002).SetName("bulk").
			SetSource(coupontemplate.SourceSHOP).SetTarget(coupontemplate.TargetSHOP_WIDE).
			SetType(coupontemplate.TypeFIXED_OFF).
			SetValidStartTime(first.ValidStart).SetValidEndTime(first.ValidEnd).
			SetTotalStock(1).SetStock(1).
			SetReceiveRule(schematype.ReceiveRule{LimitPerPerson: 1}).
			SetConsumeRule(first.Consume).SetCreatedBy(7)
		rows = append(rows, c)
	}
	for start := 0; start < len(rows); start += 2000 {
		if err := e.db.CouponTemplate.CreateBulk(rows[start:min(start+2000, len(rows))]...).Exec(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	last := e.insert(t, nil)

	if err := e.cache.EnsureBloom(e.ctx); err != nil {
		t.Fatal(err)
	}
	ids, err := e.db.CouponTemplate.Query().IDs(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if ok, err := e.cache.bloomMayContain(e.ctx, id); err != nil || !ok {
			t.Fatalf("id %d of the database is not in the rebuilt filter (%v)", id, err)
		}
	}

	// Present and ready: nothing is read again, so a row inserted without BloomAdd stays unknown.
	late := e.insert(t, nil)
	if err := e.cache.EnsureBloom(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cache.Get(e.ctx, late.ID); !errors.Is(err, coupon.ErrNotFound) {
		t.Fatalf("Get of an id the ready filter lacks = %v, want coupon.ErrNotFound", err)
	}

	// Key deleted: rebuilt from the database.
	e.rdb.Del(e.ctx, keys.Bloom())
	if err := e.cache.EnsureBloom(e.ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{first.ID, last.ID, late.ID} {
		if ok, err := e.cache.bloomMayContain(e.ctx, id); err != nil || !ok {
			t.Errorf("id %d missing after the rebuild (%v)", id, err)
		}
	}
	if _, err := e.cache.Get(e.ctx, late.ID); err != nil {
		t.Errorf("Get after the rebuild = %v", err)
	}
}
