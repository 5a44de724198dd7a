package template

import (
	"testing"

	"coupond/idgen"
)

// TestGetMany: cached templates come from one pipeline, an uncached one through the lookup chain
// (one database load), an unknown id is left out.
func TestGetMany(t *testing.T) {
	e := newCacheEnv(t, CacheOptions{})
	cached, uncached := e.insert(t, nil), e.insert(t, nil)
	missing := idgen.Next()
	e.ready(t, cached.ID, uncached.ID, missing)
	if err := e.cache.Put(e.ctx, cached); err != nil {
		t.Fatal(err)
	}
	got, err := e.cache.GetMany(e.ctx, []int64{cached.ID, uncached.ID, missing})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[missing] != nil {
		t.Fatalf("GetMany answered %d templates: %v", len(got), got)
	}
	sameTemplate(t, got[cached.ID], cached)
	sameTemplate(t, got[uncached.ID], uncached)
	if n := e.loads.Load(); n != 2 { // the uncached one and the missing one
		t.Errorf("%d database loads, want 2", n)
	}
}
