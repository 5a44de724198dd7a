package reconcile_test

import (
	"strconv"
	"testing"
	"time"

	"coupond/coupon/keys"
	"coupond/coupon/reconcile"
	"coupond/testutil/stack"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// gather scrapes the collector alone: metric name → template label ("" for none) → value.
func gather(t *testing.T, c *reconcile.Collector) map[string]map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]float64{}
	for _, f := range families {
		out[f.GetName()] = map[string]float64{}
		for _, m := range f.GetMetric() {
			out[f.GetName()][label(m, "template")] = value(m)
		}
	}
	return out
}

func value(m *dto.Metric) float64 { return m.GetGauge().GetValue() }

// The scrape reads outbox depth, the oldest claim's age and the live stock per template, only for
// the deepest Top active templates; an ended template's series disappear; the totals cover all.
func TestCollectorReadsOutboxesAtScrapeTime(t *testing.T) {
	e := newEnv(t, "collector", stack.Options{})
	a, b, c := e.Template(t, 50, 5, nil), e.Template(t, 50, 5, nil), e.Template(t, 50, 5, nil)
	e.claim(t, a.ID, 1, 2, 3)
	e.claim(t, b.ID, 1, 2)
	e.claim(t, c.ID, 1)
	time.Sleep(20 * time.Millisecond)
	col := reconcile.NewCollector(e.Redis, 2)
	got := gather(t, col)
	id := func(x int64) string { return strconv.FormatInt(x, 10) }
	depth := got["coupond_outbox_depth"]
	if len(depth) != 2 || depth[id(a.ID)] != 3 || depth[id(b.ID)] != 2 {
		t.Fatalf("depth = %v, want the two deepest: a 3, b 2", depth)
	}
	if s := got["coupond_template_stock_remaining"]; len(s) != 2 || s[id(a.ID)] != 47 || s[id(b.ID)] != 48 {
		t.Fatalf("stock = %v", s)
	}
	if age := got["coupond_outbox_oldest_claim_age_seconds"][id(a.ID)]; age < 0.02 || age > 30 {
		t.Fatalf("oldest age = %v", age)
	}
	if lag := got["coupond_persistence_lag_seconds"][""]; lag < 0.02 {
		t.Fatalf("lag = %v", lag)
	}
	if total := got["coupond_outbox_depth_total"][""]; total != 6 {
		t.Fatalf("total depth = %v, want 6", total)
	}
	// Persisting a and ending b: a shows depth 0, b's series go, c takes its place.
	e.persist(t, a.ID)
	if _, err := e.Templates.Terminate(e.Ctx, stack.Merchant, b.ID); err != nil {
		t.Fatal(err)
	}
	got = gather(t, col)
	depth = got["coupond_outbox_depth"]
	if _, ok := depth[id(b.ID)]; ok || len(depth) != 2 || depth[id(c.ID)] != 1 || depth[id(a.ID)] != 0 {
		t.Fatalf("after ending b, depth = %v", depth)
	}
	if _, ok := got["coupond_template_stock_remaining"][id(b.ID)]; ok {
		t.Fatal("an ended template still has a stock series")
	}
	if total := got["coupond_outbox_depth_total"][""]; total != 3 {
		t.Fatalf("total depth = %v, want 3 (b's claims still wait)", total)
	}
	// No outbox at all: zero lag, no per-template series.
	e.Redis.Del(e.Ctx, keys.OutboxIndex())
	got = gather(t, col)
	if got["coupond_persistence_lag_seconds"][""] != 0 || len(got["coupond_outbox_depth"]) != 0 {
		t.Fatalf("empty index: %v", got)
	}
}
