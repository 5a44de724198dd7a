package checkout_test

import (
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/checkout"
	"coupond/coupon/template"
	"coupond/ent/coupontemplate"
	"coupond/testutil/stack"

	"github.com/shopspring/decimal"
)

// create makes a template as actor (stack.Merchant's shop for merchants).
func create(t *testing.T, st *stack.Stack, actor coupon.Actor, mutate func(*template.CreateInput)) *coupon.Template {
	t.Helper()
	now := time.Now()
	five := dec("5")
	in := template.CreateInput{
		Name: "w", Source: coupontemplate.SourceSHOP, Target: coupontemplate.TargetSHOP_WIDE,
		Type: coupontemplate.TypeFIXED_OFF, ValidStartTime: now.Add(-time.Minute), ValidEndTime: now.Add(time.Hour),
		Stock: 1000, LimitPerPerson: 1000, DiscountAmount: &five,
	}
	if actor.Role == coupon.RolePlatform {
		in.Source = coupontemplate.SourcePLATFORM
	}
	mutate(&in)
	tpl, err := st.Templates.Create(st.Ctx, actor, in)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func dp(s string) *decimal.Decimal { d := dec(s); return &d }

// TestWallet200: a wallet of 200 coupons of many kinds answers a quote for each (reasons for the
// ones that do not apply), applicable ones best first, and the best combination equals a brute
// force over every (shop coupon, platform coupon) pair.
func TestWallet200(t *testing.T) {
	st := stack.New(t, pkg, "wallet", stack.Options{})
	const u = 21
	platformActor := coupon.Actor{UserID: 2, Role: coupon.RolePlatform}
	otherShop := coupon.Actor{UserID: 3, Role: coupon.RoleMerchant, Shop: 2002}
	end := func(h int) time.Time { return time.Now().Add(time.Duration(h) * time.Hour) }
	kinds := []struct {
		actor  coupon.Actor
		mutate func(*template.CreateInput)
		expire bool
		want   coupon.Code
	}{
		{stack.Merchant, func(in *template.CreateInput) {}, false, ""}, // FIXED 5
		{stack.Merchant, func(in *template.CreateInput) {
			in.Type, in.ThresholdAmount, in.DiscountAmount = coupontemplate.TypeTHRESHOLD_OFF, dp("100"), dp("12")
		}, false, ""},
		{stack.Merchant, func(in *template.CreateInput) {
			in.Type, in.ThresholdAmount, in.DiscountAmount = coupontemplate.TypeTHRESHOLD_OFF, dp("150"), dp("40")
		}, false, coupon.CodeThresholdNotMet},
		{stack.Merchant, func(in *template.CreateInput) {
			in.Type, in.DiscountAmount, in.DiscountRate, in.MaxDiscountAmount = coupontemplate.TypePERCENT_OFF, nil, dp("0.875"), dp("9.99")
		}, false, ""},
		{stack.Merchant, func(in *template.CreateInput) {
			g := "tea"
			in.Target, in.Goods = coupontemplate.TargetPRODUCT, &g
		}, false, coupon.CodeNotApplicable},
		{otherShop, func(in *template.CreateInput) {}, false, coupon.CodeNotApplicable},
		{stack.Merchant, func(in *template.CreateInput) {}, true, coupon.CodeExpired},
		{platformActor, func(in *template.CreateInput) {
			in.Type, in.ThresholdAmount, in.DiscountAmount = coupontemplate.TypeTHRESHOLD_OFF, dp("95"), dp("20")
		}, false, ""},
		{platformActor, func(in *template.CreateInput) {
			in.Type, in.DiscountAmount, in.DiscountRate = coupontemplate.TypePERCENT_OFF, nil, dp("0.9")
		}, false, ""},
		{platformActor, func(in *template.CreateInput) {
			in.Type, in.ThresholdAmount, in.DiscountAmount = coupontemplate.TypeTHRESHOLD_OFF, dp("500"), dp("100")
		}, false, coupon.CodeThresholdNotMet},
	}
	want := map[int64]coupon.Code{}
	for i, k := range kinds {
		tpl := create(t, st, k.actor, k.mutate)
		e := end(i + 2)
		if k.expire {
			e = time.Now().Add(-time.Second)
		}
		for _, c := range give(t, st, tpl, u, 20, e) {
			want[c.ID] = k.want
		}
	}
	// One coupon locked by another order.
	var lockedID int64
	for id, c := range want {
		if c == "" {
			if _, err := st.Checkout.Lock(st.Ctx, user(u), id, order(999, "100")); err != nil {
				t.Fatal(err)
			}
			lockedID, want[id] = id, coupon.CodeAlreadyLocked
			break
		}
	}
	o := order(1, "100")
	quotes, err := st.Checkout.Applicable(st.Ctx, user(u), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(quotes) != 200 {
		t.Fatalf("%d quotes for a wallet of 200", len(quotes))
	}
	applicable := true
	for i, q := range quotes {
		if q.Code != want[q.Coupon.ID] || q.Applicable != (q.Code == "") || (q.Code != "") != (q.Reason != "") {
			t.Fatalf("quote %d of coupon %d: %+v, want code %q", i, q.Coupon.ID, q, want[q.Coupon.ID])
		}
		if !q.Applicable {
			applicable = false
			continue
		}
		if !applicable {
			t.Fatalf("applicable quote %d after inapplicable ones", i)
		}
		if i > 0 && quotes[i-1].Applicable {
			p := quotes[i-1]
			if p.Discount.LessThan(q.Discount) || (p.Discount.Equal(q.Discount) && p.Coupon.ValidEndTime.After(q.Coupon.ValidEndTime)) {
				t.Fatalf("quote %d (%s, ends %s) before %d (%s, ends %s)", i-1, p.Discount, p.Coupon.ValidEndTime, i, q.Discount, q.Coupon.ValidEndTime)
			}
		}
	}
	if lockedID == 0 {
		t.Fatal("no coupon locked")
	}
	best, err := st.Checkout.Best(st.Ctx, user(u), o)
	if err != nil {
		t.Fatal(err)
	}
	// Brute force: every shop coupon (or none) with every platform coupon (or none).
	var shops, platforms []*checkout.Quote
	shops, platforms = append(shops, nil), append(platforms, nil)
	for i := range quotes {
		q := &quotes[i]
		if !q.Applicable {
			continue
		}
		if q.Template.Source == coupontemplate.SourcePLATFORM {
			platforms = append(platforms, q)
		} else {
			shops = append(shops, q)
		}
	}
	top := decimal.Zero
	for _, s := range shops {
		for _, p := range platforms {
			total := decimal.Zero
			if s != nil {
				total = s.Discount
			}
			if p != nil {
				d, err := checkout.Discount(p.Template, &o, total)
				if err != nil {
					continue
				}
				total = total.Add(d)
			}
			top = decimal.Max(top, total)
		}
	}
	if !best.Discount.Equal(top) || !best.Payable.Equal(o.Amount.Sub(top)) || len(best.Quotes) > 2 {
		t.Fatalf("best %s (%d coupons), brute force %s", best.Discount, len(best.Quotes), top)
	}
	// Shop 12 (threshold 100) leaves 88 < 95, shop 5 leaves 95 → +20: 25 beats 12 + 8.8 and 9.99 + 9.
	if !top.Equal(dec("25")) {
		t.Fatalf("brute force found %s, the case was built for 25", top)
	}
}

// TestStackingAtLock: one shop coupon per shop and order, platform after shop coupons, and two
// shop coupons racing for one order's slot: one wins.
func TestStackingAtLock(t *testing.T) {
	st := stack.New(t, pkg, "stacking", stack.Options{})
	const u = 31
	shopTpl := tplWith(t, st, nil)
	platformTpl := create(t, st, coupon.Actor{UserID: 2, Role: coupon.RolePlatform}, func(in *template.CreateInput) {
		in.Type, in.ThresholdAmount, in.DiscountAmount = coupontemplate.TypeTHRESHOLD_OFF, dp("95"), dp("20")
	})
	shopCoupons := give(t, st, shopTpl, u, 20, time.Now().Add(time.Hour))
	pc := give(t, st, platformTpl, u, 2, time.Now().Add(time.Hour))
	// 20 shop coupons race for order 1's one shop slot.
	results := make(chan error, 20)
	for _, c := range shopCoupons {
		go func() {
			_, err := st.Checkout.Lock(st.Ctx, user(u), c.ID, order(1, "100"))
			results <- err
		}()
	}
	won := 0
	for range shopCoupons {
		switch err := <-results; code(err) {
		case "":
			won++
		case coupon.CodeNotApplicable:
		default:
			t.Fatalf("racing shop coupons: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d shop coupons locked on one order", won)
	}
	for _, c := range shopCoupons {
		checkBooks(t, st, c, false)
	}
	// The platform coupon is measured on what the shop coupon left: 95 → 20 off.
	s, err := st.Checkout.Lock(st.Ctx, user(u), pc[0].ID, order(1, "100"))
	if err != nil || !s.DiscountAmount.Equal(dec("20")) || !s.PayableAmount.Equal(dec("75")) {
		t.Fatalf("platform after shop: %+v, %v", s, err)
	}
	if _, err := st.Checkout.Lock(st.Ctx, user(u), pc[1].ID, order(1, "100")); !isCode(err, coupon.CodeNotApplicable) {
		t.Fatalf("a second platform coupon: %v", err)
	}
	// Order 2: platform first, then a shop coupon is refused.
	if _, err := st.Checkout.Lock(st.Ctx, user(u), pc[1].ID, order(2, "100")); err != nil {
		t.Fatal(err)
	}
	var free int64
	for _, c := range shopCoupons {
		if cur := checkBooks(t, st, c, false); cur.Status == "UNUSED" {
			free = c.ID
			break
		}
	}
	if _, err := st.Checkout.Lock(st.Ctx, user(u), free, order(2, "100")); !isCode(err, coupon.CodeNotApplicable) {
		t.Fatalf("a shop coupon after the platform one: %v", err)
	}
}

// TestStackingRace: a shop coupon and a platform coupon locked at once on the same order: either
// the platform coupon is measured on what the shop coupon left, or one of the two is refused.
func TestStackingRace(t *testing.T) {
	st := stack.New(t, pkg, "stacking_race", stack.Options{})
	const u, orders = 41, 30
	shopTpl := tplWith(t, st, nil) // 5 off
	platformTpl := create(t, st, coupon.Actor{UserID: 2, Role: coupon.RolePlatform}, func(in *template.CreateInput) {
		in.Type, in.ThresholdAmount, in.DiscountAmount = coupontemplate.TypeTHRESHOLD_OFF, dp("100"), dp("20")
	})
	shops := give(t, st, shopTpl, u, orders, time.Now().Add(time.Hour))
	platforms := give(t, st, platformTpl, u, orders, time.Now().Add(time.Hour))
	both := 0
	for i := range orders {
		o := order(int64(500+i), "100") // 100 meets the platform threshold alone, 95 does not
		var shopErr, platformErr error
		var ps *checkout.Settlement
		done := make(chan bool)
		go func() { _, shopErr = st.Checkout.Lock(st.Ctx, user(u), shops[i].ID, o); done <- true }()
		go func() { ps, platformErr = st.Checkout.Lock(st.Ctx, user(u), platforms[i].ID, o); done <- true }()
		<-done
		<-done
		switch {
		case shopErr == nil && platformErr == nil:
			both++
			t.Errorf("order %d: both locked, the platform coupon (threshold 100) with %s on what the shop coupon left (95)", i, ps.DiscountAmount)
		case shopErr == nil && !isCode(platformErr, coupon.CodeThresholdNotMet) && !isCode(platformErr, coupon.CodeNotApplicable):
			t.Errorf("order %d: platform refused with %v", i, platformErr)
		case platformErr == nil && !isCode(shopErr, coupon.CodeNotApplicable):
			t.Errorf("order %d: shop refused with %v", i, shopErr)
		case shopErr != nil && platformErr != nil:
			t.Errorf("order %d: both refused: %v; %v", i, shopErr, platformErr)
		}
		checkBooks(t, st, shops[i], false)
		checkBooks(t, st, platforms[i], false)
	}
}
