package graph

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/distribution"
	"coupond/coupon/keys"
	"coupond/coupon/stats"
	"coupond/ent"
	"coupond/ent/coupontask"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// countingStats is e served again with a stats service whose every SQL statement is counted.
func (e *env) countingStats() (*env, *atomic.Int64) {
	var n atomic.Int64
	drv := dialect.DebugWithContext(entsql.OpenDB(dialect.MySQL, e.sqlDB), func(context.Context, ...any) { n.Add(1) })
	s := e.stack
	h := NewHandler(&Resolver{Templates: s.Templates, Redeemer: s.Redeemer, Wallet: s.Wallet, Distribution: s.Distribution,
		Checkout: s.Checkout, Reminders: s.Reminders, Reconciler: s.Reconciler, Settings: testSettings,
		Stats: stats.New(ent.NewClient(ent.Driver(drv)), s.Redis, s.Templates, stats.Config{})},
		HandlerConfig{Signer: e.signer, Introspection: true, ComplexityLimit: 500, DepthLimit: 15})
	srv := httptest.NewServer(e.signer.Middleware(h))
	e.t.Cleanup(srv.Close)
	out := *e
	out.srv = srv
	return &out, &n
}

const pageStatsQuery = `query($n: Int, $from: Time) { couponTemplates(first: $n) { edges { node { id
  stats { templateId issuedCount daily { issued } }
  since: stats(from: $from) { templateId issuedCount } } } } }`

type pageStatsJSON struct {
	Edges []struct {
		Node struct {
			ID    string `json:"id"`
			Stats *struct {
				TemplateID  string `json:"templateId"`
				IssuedCount int    `json:"issuedCount"`
				Daily       []struct{ Issued int }
			} `json:"stats"`
			Since *struct {
				TemplateID  string `json:"templateId"`
				IssuedCount int    `json:"issuedCount"`
			} `json:"since"`
		} `json:"node"`
	} `json:"edges"`
}

// A page of templates asking for each one's stats twice (two spans) costs the stats two SQL
// statements per span, for 40 templates as for 2: the loader batches the page (no N+1). Each
// template's numbers are its own.
func TestTemplateStatsFieldIsBatched(t *testing.T) {
	e := newEnv(t, "stats_field")
	var ids []string
	for range 40 {
		ids = append(ids, e.create(shopA).ID)
	}
	claimed := ids[len(ids)-1] // the newest: first in the page
	r := e.do(e.token(user), `mutation($id: ID!) { redeemCoupon(input: {templateId: $id, requestId: "b-1"}) { redemption { status } } }`,
		map[string]any{"id": claimed})
	if len(r.Errors) > 0 {
		t.Fatalf("redeem: %+v", r.Errors)
	}
	counted, queries := e.countingStats()
	from := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	for _, n := range []int{40, 2} {
		queries.Store(0)
		page := field[pageStatsJSON](t, counted.do(e.token(shopA), pageStatsQuery, map[string]any{"n": n, "from": from}), "couponTemplates")
		if q := queries.Load(); q != 4 {
			t.Errorf("a page of %d templates with stats over two spans: %d SQL statements, want 4", n, q)
		}
		if len(page.Edges) != n {
			t.Fatalf("page of %d: %d edges", n, len(page.Edges))
		}
		for _, edge := range page.Edges {
			want := 0
			if edge.Node.ID == claimed {
				want = 1
			}
			s, since := edge.Node.Stats, edge.Node.Since
			if s == nil || since == nil || s.TemplateID != edge.Node.ID || since.TemplateID != edge.Node.ID ||
				s.IssuedCount != want || since.IssuedCount != want || len(s.Daily) != 1 || s.Daily[0].Issued != want {
				t.Errorf("template %s: stats %+v since %+v, want issued %d", edge.Node.ID, s, since, want)
			}
		}
	}
}

// CouponTemplate.stats is the numbers for the template's merchant and the platform, null (no
// error) for a user; to another shop's merchant the template itself is null, as a missing id.
func TestTemplateStatsFieldIsForItsShop(t *testing.T) {
	e := newEnv(t, "stats_field_auth")
	tpl := e.create(shopA)
	q := `query($id: ID!) { couponTemplate(id: $id) { id stats { templateId totalStock } } }`
	vars := map[string]any{"id": tpl.ID}
	for _, a := range []coupon.Actor{shopA, {UserID: 5, Role: coupon.RolePlatform}} {
		r := e.do(e.token(a), q, vars)
		if len(r.Errors) > 0 || !strings.Contains(string(r.Data["couponTemplate"]), `"stats":{"templateId":"`+tpl.ID+`","totalStock":100}`) {
			t.Errorf("%s: %s %+v", a.Role, r.Data["couponTemplate"], r.Errors)
		}
	}
	r := e.do(e.token(user), q, vars)
	if len(r.Errors) > 0 || !strings.Contains(string(r.Data["couponTemplate"]), `"stats":null`) {
		t.Errorf("user: %s %+v, want stats null", r.Data["couponTemplate"], r.Errors)
	}
	if r := e.do(e.token(shopB), q, vars); string(r.Data["couponTemplate"]) != "null" {
		t.Errorf("another shop: %s %+v, want null", r.Data["couponTemplate"], r.Errors)
	}
}

// ShopStats' daily series and its locked, expired and refunded counts are the shop's counters,
// exactly: today's realtime hash (written here) and the locks held.
func TestShopStatsDailyAndCounts(t *testing.T) {
	e := newEnv(t, "shop_daily")
	tpl := e.create(shopB)
	var id int64
	fmt.Sscan(tpl.ID, &id)
	today := time.Now().In(keys.StatsZone()).Format(time.DateOnly)
	ctx := context.Background()
	err := e.stack.Redis.HSet(ctx, keys.DailyStats(id, today), map[string]any{
		keys.StatIssuedClaim: 9, keys.StatIssuedDistribution: 2, keys.StatUsed: 4, keys.StatDiscountCents: 2800,
		keys.StatRefunded: 3, keys.StatRefundedDiscountCents: 2100, keys.StatExpired: 5}).Err()
	if err == nil {
		err = e.stack.Redis.HSet(ctx, keys.StatsLive(id), keys.StatLocked, 6).Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	type shopJSON struct {
		IssuedCount, UsedCount, LockedCount, ExpiredCount, RefundedCount int
		DiscountTotal                                                    string
		Daily                                                            []struct {
			Date                            string
			Issued, Used, Refunded, Expired int
			Discount                        string
		}
	}
	from := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	s := field[shopJSON](t, e.do(e.token(shopB), `query($from: Time) { shopStats(from: $from) { issuedCount usedCount lockedCount expiredCount
	  refundedCount discountTotal daily { date issued used discount refunded expired } } }`, map[string]any{"from": from}), "shopStats")
	got := fmt.Sprintf("%+v", s)
	last := len(s.Daily) - 1
	if last < 0 || s.IssuedCount != 11 || s.UsedCount != 4 || s.LockedCount != 6 || s.ExpiredCount != 5 || s.RefundedCount != 3 ||
		s.DiscountTotal != "28.00" || s.Daily[last].Date != today || s.Daily[last].Issued != 11 || s.Daily[last].Used != 4 ||
		s.Daily[last].Refunded != 3 || s.Daily[last].Expired != 5 || s.Daily[last].Discount != "28.00" {
		t.Errorf("shopStats %s", got)
	}
	for _, d := range s.Daily[:max(last, 0)] {
		if d.Issued != 0 || d.Used != 0 || d.Expired != 0 || d.Refunded != 0 {
			t.Errorf("day %s has numbers: %+v", d.Date, d)
		}
	}
}

// CouponTask.failureCounts is the task's failures by code, largest first; to another shop's
// merchant the task is null, as a missing id.
func TestTaskFailureCounts(t *testing.T) {
	e := newEnv(t, "failure_counts")
	tpl := e.create(shopA)
	var id int64
	fmt.Sscan(tpl.ID, &id)
	task, err := e.stack.Distribution.Create(context.Background(), shopA, distribution.CreateInput{TemplateID: id, Name: "push",
		SendType: coupontask.SendTypeIMMEDIATE, FileName: "u.csv", File: strings.NewReader("userId\n1\n1\nx\ny\nz\n2\n")})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.stack.Distribution.Run(context.Background(), task.ID); err != nil {
		t.Fatal(err)
	}
	q := `query($id: ID!) { couponTask(id: $id) { failCount failureCounts { code count } } }`
	vars := map[string]any{"id": fmt.Sprint(task.ID)}
	r := e.do(e.token(shopA), q, vars)
	want := `{"failCount":4,"failureCounts":[{"code":"INVALID_USER_ID","count":3},{"code":"DUPLICATE_IN_FILE","count":1}]}`
	if len(r.Errors) > 0 || string(r.Data["couponTask"]) != want {
		t.Errorf("couponTask: %s %+v, want %s", r.Data["couponTask"], r.Errors, want)
	}
	if r := e.do(e.token(shopB), q, vars); string(r.Data["couponTask"]) != "null" {
		t.Errorf("another shop: %s %+v, want null", r.Data["couponTask"], r.Errors)
	}
}
