package stats_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/stats"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/testutil/stack"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/shopspring/decimal"
)

// countingStats is a stats service over st's database whose every SQL statement is counted.
func countingStats(st *stack.Stack) (*stats.Service, *atomic.Int64) {
	var n atomic.Int64
	drv := dialect.DebugWithContext(entsql.OpenDB(dialect.MySQL, st.SQL), func(context.Context, ...any) { n.Add(1) })
	return stats.New(ent.NewClient(ent.Driver(drv)), st.Redis, st.Templates, stats.Config{}), &n
}

// Many answers each template what TemplateStats answers it (equal to SQL's counts), each over its
// own span (a template created days ago gets its days, a new one only today) and nil for a
// template the caller does not manage; and it reads MySQL twice whatever the number of templates.
func TestManyIsTemplateStatsInConstantQueries(t *testing.T) {
	st := stack.New(t, "stats", "many", stack.Options{})
	old := st.Template(t, 50, 2, nil)
	busy := st.Template(t, 50, 2, nil)
	idle := st.Template(t, 50, 2, nil)
	claim(t, st, busy.ID, 301, 302, 303, 304)
	claim(t, st, old.ID, 305)
	if _, err := st.Checkout.Lock(st.Ctx, user(301), couponOf(t, st, busy.ID, 301), order(7001)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Checkout.Lock(st.Ctx, user(302), couponOf(t, st, busy.ID, 302), order(7002)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Checkout.Confirm(st.Ctx, stack.Orders, 7002, couponOf(t, st, busy.ID, 302), order(7002).Amount); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SQL.Exec(`UPDATE coupon_template SET created_at = ? WHERE id = ?`, time.Now().AddDate(0, 0, -3), old.ID); err != nil {
		t.Fatal(err)
	}
	other, err := st.Templates.Create(st.Ctx, coupon.Actor{UserID: 2, Role: coupon.RoleMerchant, Shop: 2002}, shopInput())
	if err != nil {
		t.Fatal(err)
	}
	in := shopInput()
	in.Source = coupontemplate.SourcePLATFORM
	platformTpl, err := st.Templates.Create(st.Ctx, platform, in)
	if err != nil {
		t.Fatal(err)
	}

	svc, queries := countingStats(st)
	ids := []int64{busy.ID, other.ID, old.ID, platformTpl.ID, idle.ID, 999999}
	got, errs := svc.Many(st.Ctx, stack.Merchant, ids, nil, nil)
	if q := queries.Load(); q != 2 {
		t.Errorf("Many of %d templates: %d SQL statements, want 2", len(ids), q)
	}
	for i, id := range ids {
		if errs[i] != nil {
			t.Fatalf("template %d: %v", id, errs[i])
		}
		mine := id == busy.ID || id == old.ID || id == idle.ID
		if !mine {
			if got[i] != nil {
				t.Errorf("template %d (not the merchant's): %+v, want nil", id, got[i])
			}
			continue
		}
		want := checkAgainstSQL(t, st, id, "many")
		if got[i] == nil || got[i].Total != want.Total || len(got[i].Daily) != len(want.Daily) ||
			got[i].LockedCount != want.LockedCount || got[i].RemainingStock != want.RemainingStock {
			t.Errorf("template %d: Many %+v, TemplateStats %+v", id, got[i], want)
		}
	}
	if d := len(got[2].Daily); d != 4 {
		t.Errorf("a template created 3 days ago: %d days, want 4", d)
	}
	if got[0].IssuedCount() != 4 || got[0].UsedCount() != 1 || got[0].LockedCount != 1 || len(got[0].Daily) != 1 {
		t.Errorf("busy: issued %d used %d locked %d days %d, want 4 1 1 1", got[0].IssuedCount(), got[0].UsedCount(), got[0].LockedCount, len(got[0].Daily))
	}

	queries.Store(0)
	if _, errs := svc.Many(st.Ctx, stack.Merchant, ids[:1], nil, nil); errs[0] != nil || queries.Load() != 2 {
		t.Errorf("Many of 1 template: %d SQL statements (%v), want 2", queries.Load(), errs[0])
	}
	// Platform sees any template; a user none.
	all, _ := svc.Many(st.Ctx, platform, ids, nil, nil)
	none, _ := svc.Many(st.Ctx, user(301), ids, nil, nil)
	for i, id := range ids {
		if (all[i] != nil) != (id != 999999) || none[i] != nil {
			t.Errorf("template %d: platform %v, user %v", id, all[i] != nil, none[i] != nil)
		}
	}
	// A span refused for a template (to before its day) is that template's error only.
	to := time.Now().AddDate(0, 0, -2)
	_, errs = svc.Many(st.Ctx, stack.Merchant, []int64{old.ID, busy.ID}, nil, &to)
	if errs[0] != nil || errs[1] == nil {
		t.Errorf("to two days ago: errors %v, want only the new template's", errs)
	}
}

// shopInput is an open template's input for another shop or the platform.
func shopInput() template.CreateInput {
	in := template.CreateInput{Name: "theirs", Source: coupontemplate.SourceSHOP, Target: coupontemplate.TargetSHOP_WIDE,
		Type: coupontemplate.TypeFIXED_OFF, ValidStartTime: time.Now().Add(-time.Minute), ValidEndTime: time.Now().Add(time.Hour),
		Stock: 10, LimitPerPerson: 1}
	five := decimal.NewFromInt(5)
	in.DiscountAmount = &five
	return in
}
