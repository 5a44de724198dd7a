package stats_test

import (
	"testing"
	"time"

	"coupond/coupon/keys"
	"coupond/ent/usercoupon"
	"coupond/testutil/stack"
)

// A scripted day of a template — claims through the redeem script and the persister, a
// distribution, locks, payments, a release, refunds, expiry — gives templateStats equal to what SQL
// counts from user_coupon and coupon_settlement, per day: realtime, after the roll-up, after a
// Redis flush and the roll-up's recovery, after a flush with no roll-up before it and an
// on-demand rebuild, after coupons are moved to the archive, and once the day is sealed.
func TestTemplateStatsMatchSQL(t *testing.T) {
	st := stack.New(t, "stats", "scenario", stack.Options{})
	tpl := st.Template(t, 100, 2, nil)
	var users []int64
	for u := int64(101); u <= 130; u++ {
		users = append(users, u)
	}
	claim(t, st, tpl.ID, users...)
	claim(t, st, tpl.ID, 101, 102, 103) // second coupons
	distribute(t, st, tpl.ID, 201, 202, 203, 204, 205, 101)

	for i, u := range users[:12] { // 12 locks
		if _, err := st.Checkout.Lock(st.Ctx, user(u), couponOf(t, st, tpl.ID, u), order(int64(5000+i))); err != nil {
			t.Fatal(err)
		}
	}
	for i, u := range users[:8] { // 8 paid
		if _, err := st.Checkout.Confirm(st.Ctx, stack.Orders, int64(5000+i), couponOf(t, st, tpl.ID, u), order(int64(5000+i)).Amount); err != nil {
			t.Fatal(err)
		}
	}
	for i, u := range users[8:10] { // 2 released
		if _, err := st.Checkout.Release(st.Ctx, user(u), int64(5008+i), couponOf(t, st, tpl.ID, u)); err != nil {
			t.Fatal(err)
		}
	}
	for i, u := range users[:3] { // 3 refunded
		if _, err := st.Checkout.Refund(st.Ctx, stack.Orders, int64(5000+i), couponOf(t, st, tpl.ID, u)); err != nil {
			t.Fatal(err)
		}
	}
	// 5 coupons end: the sweep expires them.
	ended, err := st.DB.UserCoupon.Update().
		Where(usercoupon.TemplateID(tpl.ID), usercoupon.StatusEQ(usercoupon.StatusUNUSED), usercoupon.UserIDIn(users[20:25]...)).
		SetValidEndTime(time.Now().Add(-2 * time.Minute)).Save(st.Ctx)
	if err != nil || ended != 5 {
		t.Fatalf("end 5 coupons: %d %v", ended, err)
	}
	if n, err := st.Expirer.Sweep(st.Ctx); err != nil || n != 5 {
		t.Fatalf("sweep: %d %v", n, err)
	}

	got := checkAgainstSQL(t, st, tpl.ID, "realtime")
	// 101 holds 2 already: its distributed row is refused (LIMIT_REACHED).
	if got.IssuedCount() != 38 || got.Total.IssuedDistribution != 5 || got.LockedCount != 2 || got.UsedCount() != 5 || got.Total.Expired != 5 {
		t.Errorf("scenario: issued %d (distribution %d), locked %d, used %d, expired %d; want 38 (5), 2, 5, 5",
			got.IssuedCount(), got.Total.IssuedDistribution, got.LockedCount, got.UsedCount(), got.Total.Expired)
	}
	if want := 5.0 / 38; got.RedeemRate() != want || got.DiscountTotal().String() != "25" || got.RemainingStock != 100-38 {
		t.Errorf("rate %v discount %s remaining %d", got.RedeemRate(), got.DiscountTotal(), got.RemainingStock)
	}

	if _, err := st.Stats.RollUp(st.Ctx); err != nil {
		t.Fatal(err)
	}
	checkAgainstSQL(t, st, tpl.ID, "after the roll-up")

	flush(t, st)
	res, err := st.Stats.RollUp(st.Ctx)
	if err != nil || !res.Recovered {
		t.Fatalf("roll-up after a flush: %+v %v", res, err)
	}
	checkAgainstSQL(t, st, tpl.ID, "after a flush and the roll-up")

	// A flush before any roll-up of the day: the rebuild on demand restores it.
	if _, err := st.SQL.Exec(`DELETE FROM template_daily_stats WHERE template_id = ?`, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SQL.Exec(`INSERT INTO template_daily_stats (id, template_id, shop_number, day, refunded_discount, discount_total, created_at, updated_at)
		VALUES (1, 1, 1, '2026-01-01', 0, 0, NOW(), NOW())`); err != nil { // another template's old day: roll-ups ran before
		t.Fatal(err)
	}
	flush(t, st)
	if _, err := st.Stats.RollUp(st.Ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Stats.Rebuild(st.Ctx, tpl.ID, nil, nil); err != nil || n < 1 {
		t.Fatalf("rebuild: %d %v", n, err)
	}
	checkAgainstSQL(t, st, tpl.ID, "after a flush and a rebuild")

	// 5 EXPIRED move; of the 5 still USED, those whose payment stands (a live settlement) stay.
	if moved := archiveDue(t, st); moved < 5 {
		t.Fatalf("archived %d coupons, want at least the 5 expired ones", moved)
	}
	checkAgainstSQL(t, st, tpl.ID, "after archiving")
	if _, err := st.Stats.Rebuild(st.Ctx, tpl.ID, nil, nil); err != nil {
		t.Fatal(err)
	}
	checkAgainstSQL(t, st, tpl.ID, "after archiving and a rebuild")

	// A count lost to a crash between a commit and its Redis write, and one counted twice: the
	// realtime figure is off until the day is sealed.
	day := keys.StatsDay(time.Now())
	st.Redis.HIncrBy(st.Ctx, keys.DailyStats(tpl.ID, day), keys.StatIssuedClaim, 5)
	st.Redis.HIncrBy(st.Ctx, keys.DailyStats(tpl.ID, day), keys.StatUsed, -1)
	if _, err := st.Stats.RollUp(st.Ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Stats.TemplateStats(st.Ctx, platform, tpl.ID, nil, nil); got.IssuedCount() != 43 {
		t.Fatalf("the corrupted counter should show until the seal: issued %d", got.IssuedCount())
	}
	// Two hours into tomorrow the day is sealed from MySQL and served from its row alone.
	tomorrow := time.Now().Add(26 * time.Hour)
	st.Stats.SetNow(func() time.Time { return tomorrow })
	res, err = st.Stats.RollUp(st.Ctx)
	if err != nil || res.Sealed != 1 {
		t.Fatalf("seal: %+v %v", res, err)
	}
	var sealed bool
	if err := st.SQL.QueryRow(`SELECT sealed FROM template_daily_stats WHERE template_id = ?`, tpl.ID).Scan(&sealed); err != nil || !sealed {
		t.Fatalf("row sealed %v %v", sealed, err)
	}
	flush(t, st) // a sealed day needs no Redis; the roll-up recounts the locks
	if res, err := st.Stats.RollUp(st.Ctx); err != nil || !res.Recovered || res.Sealed != 0 {
		t.Fatalf("roll-up after the seal and a flush: %+v %v", res, err)
	}
	checkAgainstSQL(t, st, tpl.ID, "sealed")
}
