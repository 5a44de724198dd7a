package stats_test

import (
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/testutil"
	"coupond/testutil/stack"
)

// In a UTC+8 zone the stats day turns at 16:00 UTC: coupons issued a millisecond before and at
// that instant are counted on two days by the realtime counter (issue.CountIssued) and by the
// rebuild from MySQL, and a query's [from, to) in that zone picks each day.
func TestDayBoundaryInAnotherZone(t *testing.T) {
	st := stack.New(t, "stats", "zone", stack.Options{})
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	keys.SetStatsZone(shanghai)
	defer keys.SetStatsZone(time.UTC)
	tpl := st.Template(t, 100, 5, nil)
	turn := time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC) // 2026-12-01 00:00 in Shanghai
	before, at := turn.Add(-time.Millisecond), turn
	coupons := []*ent.UserCoupon{
		{ID: 11, UserID: 1, Source: usercoupon.SourceCLAIM, CreatedAt: before},
		{ID: 12, UserID: 2, Source: usercoupon.SourceCLAIM, CreatedAt: before},
		{ID: 13, UserID: 3, Source: usercoupon.SourceDISTRIBUTION, CreatedAt: at},
	}
	for range 2 { // a retried after-commit counts nothing twice
		if err := issue.CountIssued(st.Ctx, st.Redis, tpl.ID, coupons); err != nil {
			t.Fatal(err)
		}
	}
	for day, want := range map[string][2]string{"2026-11-30": {"2", "0"}, "2026-12-01": {"0", "1"}} {
		h := st.Redis.HGetAll(st.Ctx, keys.DailyStats(tpl.ID, day)).Val()
		if h[keys.StatIssuedClaim] != want[0] || h[keys.StatIssuedDistribution] != want[1] {
			t.Errorf("realtime %s: %v, want claim %s distribution %s", day, h, want[0], want[1])
		}
	}

	// The same coupons in MySQL, and a rebuild of those two days.
	for _, c := range coupons {
		_, err := st.SQL.Exec(`INSERT INTO user_coupon (id, user_id, template_id, redemption_id, receive_count, source, status,
			valid_start_time, valid_end_time, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, 'UNUSED', ?, ?, ?, ?)`,
			c.ID, c.UserID, tpl.ID, "zone-"+c.Source.String()+string(rune('a'+c.ID)), c.Source.String(),
			c.CreatedAt, c.CreatedAt.Add(time.Hour), c.CreatedAt, c.CreatedAt)
		if err != nil {
			t.Fatal(err)
		}
	}
	testutil.LedgerFromRows(t, st.SQL)
	from := time.Date(2026, 11, 30, 0, 0, 0, 0, shanghai)
	to := time.Date(2026, 12, 2, 0, 0, 0, 0, shanghai)
	if n, err := st.Stats.Rebuild(st.Ctx, tpl.ID, &from, &to); err != nil || n != 2 {
		t.Fatalf("rebuild: %d %v", n, err)
	}
	got, err := st.Stats.TemplateStats(st.Ctx, platform, tpl.ID, &from, &to)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Daily) != 2 || got.Daily[0].Date != "2026-11-30" || got.Daily[0].IssuedClaim != 2 || got.Daily[0].IssuedDistribution != 0 ||
		got.Daily[1].Date != "2026-12-01" || got.Daily[1].IssuedClaim != 0 || got.Daily[1].IssuedDistribution != 1 {
		t.Errorf("daily in Shanghai: %+v", got.Daily)
	}
	// [16:00Z, 16:00Z + 1ns) is the Shanghai day of December 1st alone.
	end := turn.Add(time.Nanosecond)
	got, err = st.Stats.TemplateStats(st.Ctx, platform, tpl.ID, &at, &end)
	if err != nil || len(got.Daily) != 1 || got.Daily[0].Date != "2026-12-01" || got.IssuedCount() != 1 {
		t.Errorf("one instant's day: %+v %v", got, err)
	}
	// Bad spans: to not after from, and more days than allowed.
	if _, err := st.Stats.TemplateStats(st.Ctx, platform, tpl.ID, &to, &from); !isCode(err, coupon.CodeInvalidInput) {
		t.Errorf("to before from: %v", err)
	}
	far := from.AddDate(2, 0, 0)
	if _, err := st.Stats.TemplateStats(st.Ctx, platform, tpl.ID, &from, &far); !isCode(err, coupon.CodeInvalidInput) {
		t.Errorf("two years: %v", err)
	}
}

func isCode(err error, code coupon.Code) bool {
	errs := coupon.AsErrors(err)
	return len(errs) > 0 && errs[0].Code == code
}
