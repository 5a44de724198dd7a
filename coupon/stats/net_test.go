package stats_test

import (
	"testing"
	"time"

	"coupond/coupon/stats"
	"coupond/testutil/stack"
)

// Stats are net: payments made today, 3 days ago and 20 days ago (older than the roll-up's
// look-back of closed days), some refunded today. Each refund takes its payment out of the day it
// was made (used and discount down, refunded up on that day, nothing on the refund's day), and
// over the window the daily series sums to the totals, for templateStats and shopStats: in
// realtime, after the roll-up seals the old days again, after a rebuild from MySQL and after a
// Redis flush and the roll-up's recovery.
func TestDailySeriesSumsToNetTotals(t *testing.T) {
	st := stack.New(t, "stats", "net", stack.Options{})
	tpl := st.Template(t, 100, 1, nil)
	other := st.Template(t, 100, 1, nil) // a second template of the shop, paid today only
	now := time.Now()
	if _, err := st.SQL.Exec(`UPDATE coupon_template SET created_at = ? WHERE id IN (?, ?)`, now.AddDate(0, 0, -30), tpl.ID, other.ID); err != nil {
		t.Fatal(err)
	}
	users := []int64{301, 302, 303, 304, 305, 306}
	claim(t, st, tpl.ID, users...)
	claim(t, st, other.ID, users[:2]...)
	pay := func(tplID int64, i int, u int64) {
		c := couponOf(t, st, tplID, u)
		if _, err := st.Checkout.Lock(st.Ctx, user(u), c, order(int64(7000+i))); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Checkout.Confirm(st.Ctx, stack.Orders, int64(7000+i), c, order(int64(7000+i)).Amount); err != nil {
			t.Fatal(err)
		}
	}
	for i, u := range users {
		pay(tpl.ID, i, u)
	}
	for i, u := range users[:2] {
		pay(other.ID, 10+i, u)
	}
	// 301 and 302 paid 3 days ago, 303 20 days ago: their days are rebuilt from MySQL and sealed,
	// as the roll-up left them then.
	for u, back := range map[int64]int{301: 3, 302: 3, 303: 20} {
		if _, err := st.SQL.Exec(`UPDATE coupon_settlement SET paid_at = paid_at - INTERVAL ? DAY WHERE template_id = ? AND user_id = ?`,
			back, tpl.ID, u); err != nil {
			t.Fatal(err)
		}
	}
	from := now.AddDate(0, 0, -25)
	if _, err := st.Stats.Rebuild(st.Ctx, tpl.ID, &from, nil); err != nil {
		t.Fatal(err)
	}
	day := func(back int) string { return now.AddDate(0, 0, -back).UTC().Format(time.DateOnly) }
	before := daily(t, st, tpl.ID, &from)
	if before[day(3)].Used != 2 || before[day(20)].Used != 1 || before[day(0)].Used != 3 {
		t.Fatalf("payments before the refunds: %+v", before)
	}

	// Refunds today of a payment of 3 days ago, one of 20 days ago and one of today.
	for i, u := range []int64{301, 303, 304} {
		idx := map[int64]int{301: 0, 303: 2, 304: 3}[u]
		if _, err := st.Checkout.Refund(st.Ctx, stack.Orders, int64(7000+idx), couponOf(t, st, tpl.ID, u)); err != nil {
			t.Fatalf("refund %d: %v", i, err)
		}
	}
	check := func(when string) {
		t.Helper()
		got := checkAgainstSQL(t, st, tpl.ID, when)
		sumsToTotals(t, when, got.Daily, got.Total, got.UsedCount(), got.DiscountTotal().Shift(2).IntPart())
		d := daily(t, st, tpl.ID, &from)
		for back, want := range map[int][2]int{0: {2, 1}, 3: {1, 1}, 20: {0, 1}} {
			if c := d[day(back)]; c.Used != want[0] || c.Refunded != want[1] || c.DiscountCents != int64(500*want[0]) {
				t.Errorf("%s: day %s: used %d refunded %d discount %d; want %d, %d, %d", when, day(back), c.Used, c.Refunded,
					c.DiscountCents, want[0], want[1], 500*want[0])
			}
		}
		if got.UsedCount() != 3 || got.Total.Refunded != 3 || got.DiscountTotal().String() != "15" {
			t.Errorf("%s: used %d refunded %d discount %s; want 3, 3, 15", when, got.UsedCount(), got.Total.Refunded, got.DiscountTotal())
		}
		shop, err := st.Stats.ShopStats(st.Ctx, platform, &stack.Merchant.Shop, &from, nil)
		if err != nil {
			t.Fatal(err)
		}
		sumsToTotals(t, when+", shop", shop.Daily, shop.Total, shop.Total.Used, shop.Total.DiscountCents)
		if shop.Total.Used != 5 || shop.Total.Refunded != 3 || shop.Total.Issued() != 8 || shop.LockedCount != 0 || shop.Templates != 2 {
			t.Errorf("%s: shop %+v; want used 5, refunded 3, issued 8, locked 0, 2 templates", when, shop)
		}
		if len(shop.TopByUsed) != 2 || shop.TopByUsed[0].TemplateID != tpl.ID || shop.TopByUsed[0].UsedCount() != 3 {
			t.Errorf("%s: top by used %+v", when, shop.TopByUsed)
		}
	}
	if _, err := st.Stats.RollUp(st.Ctx); err != nil {
		t.Fatal(err)
	}
	check("after the roll-up")
	if _, err := st.Stats.Rebuild(st.Ctx, tpl.ID, &from, nil); err != nil {
		t.Fatal(err)
	}
	check("after a rebuild")
	flush(t, st)
	if res, err := st.Stats.RollUp(st.Ctx); err != nil || !res.Recovered {
		t.Fatalf("roll-up after a flush: %+v %v", res, err)
	}
	check("after a flush and the roll-up")
}

// daily is the template's days from from on, by date.
func daily(t *testing.T, st *stack.Stack, templateID int64, from *time.Time) map[string]stats.Counts {
	t.Helper()
	got, err := st.Stats.TemplateStats(st.Ctx, platform, templateID, from, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]stats.Counts{}
	for _, d := range got.Daily {
		out[d.Date] = d.Counts
	}
	return out
}

// sumsToTotals fails unless the days' used, discount and refunded sum to the totals reported.
func sumsToTotals(t *testing.T, when string, days []stats.Day, total stats.Counts, used int, discountCents int64) {
	t.Helper()
	var sum stats.Counts
	for _, d := range days {
		sum = add(sum, d.Counts)
	}
	if sum.Used != used || sum.DiscountCents != discountCents || sum.Refunded != total.Refunded || sum != total {
		t.Errorf("%s: the days sum to used %d discount %d refunded %d (%+v); totals say used %d discount %d refunded %d (%+v)",
			when, sum.Used, sum.DiscountCents, sum.Refunded, sum, used, discountCents, total.Refunded, total)
	}
}
