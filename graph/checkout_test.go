package graph

import (
	"testing"

	"coupond/coupon"
)

// TestCheckoutOverGraphQL: the platform creates a PLATFORM template and a merchant a SHOP one;
// a user claims one of each, asks which apply and what the best combination is, locks both,
// pays, refunds; bad input and another user's coupon are userErrors.
func TestCheckoutOverGraphQL(t *testing.T) {
	e := newEnv(t, "checkout")
	platform := coupon.Actor{UserID: 9, Role: coupon.RolePlatform}
	in := validInput() // THRESHOLD_OFF 100 → 7
	in["source"] = "PLATFORM"
	p := field[payloadJSON](t, e.do(e.token(platform), createMutation, map[string]any{"in": in}), "createCouponTemplate")
	if p.Template == nil || len(p.UserErrors) > 0 {
		t.Fatalf("platform create: %+v", p)
	}
	platformTpl := p.Template.ID
	in = validInput()
	in["source"], in["type"], in["thresholdAmount"], in["discountAmount"] = "PLATFORM", "FIXED_OFF", nil, "3"
	if p := field[payloadJSON](t, e.do(e.token(shopA), createMutation, map[string]any{"in": in}), "createCouponTemplate"); len(p.UserErrors) != 1 {
		t.Fatalf("a merchant created a PLATFORM template: %+v", p)
	}
	in["source"] = "SHOP"
	shopTpl := field[payloadJSON](t, e.do(e.token(shopA), createMutation, map[string]any{"in": in}), "createCouponTemplate").Template.ID

	redeem := `mutation($id: ID!) { redeemCoupon(input: {templateId: $id}) { redemption { coupon { id } } userErrors { code } } }`
	couponOf := func(tpl string) string {
		r := field[struct {
			Redemption struct {
				Coupon struct{ ID string } `json:"coupon"`
			} `json:"redemption"`
		}](t, e.do(e.token(user), redeem, map[string]any{"id": tpl}), "redeemCoupon")
		return r.Redemption.Coupon.ID
	}
	shopCoupon, platformCoupon := couponOf(shopTpl), couponOf(platformTpl)

	order := map[string]any{"orderId": "5001", "shopNumber": "1001", "amount": "102.00"}
	type quote struct {
		Coupon     struct{ ID string } `json:"coupon"`
		Applicable bool                `json:"applicable"`
		Discount   string              `json:"discount"`
		Code       *string             `json:"code"`
		Reason     *string             `json:"reason"`
	}
	q := `query($o: OrderInput!) {
	  applicableCoupons(order: $o) { coupon { id } applicable discount code reason }
	  bestCouponCombination(order: $o) { coupons { coupon { id } discount } discount payable } }`
	r := e.do(e.token(user), q, map[string]any{"o": order})
	quotes := field[[]quote](t, r, "applicableCoupons")
	if len(quotes) != 2 || quotes[0].Coupon.ID != platformCoupon || quotes[0].Discount != "7.00" || quotes[1].Discount != "3.00" || quotes[0].Code != nil {
		t.Fatalf("applicableCoupons = %+v", quotes)
	}
	best := field[struct {
		Coupons []struct {
			Coupon   struct{ ID string } `json:"coupon"`
			Discount string              `json:"discount"`
		} `json:"coupons"`
		Discount string `json:"discount"`
		Payable  string `json:"payable"`
	}](t, r, "bestCouponCombination")
	// The shop coupon leaves 99, under the platform threshold: the platform coupon alone is best.
	if best.Discount != "7.00" || best.Payable != "95.00" || len(best.Coupons) != 1 || best.Coupons[0].Coupon.ID != platformCoupon {
		t.Fatalf("bestCouponCombination = %+v", best)
	}
	// One cent under the threshold: a reason with the amount missing.
	order["amount"] = "99.99"
	quotes = field[[]quote](t, e.do(e.token(user), q, map[string]any{"o": order}), "applicableCoupons")
	if quotes[1].Applicable || quotes[1].Code == nil || *quotes[1].Code != "THRESHOLD_NOT_MET" || *quotes[1].Reason != "spend 0.01 more: the coupon needs 100.00 and the order counts 99.99" {
		t.Fatalf("below the threshold: %+v", quotes)
	}
	order["amount"] = "200"

	lock := `mutation($c: ID!, $o: OrderInput!) { lockCoupon(input: {couponId: $c, order: $o}) {
	  settlement { id orderId status orderAmount discount payable lockExpiresAt coupon { id status } } userErrors { code field message } } }`
	type settlementPayload struct {
		Settlement *struct {
			ID          string  `json:"id"`
			Status      string  `json:"status"`
			Discount    string  `json:"discount"`
			Payable     string  `json:"payable"`
			LockExpires *string `json:"lockExpiresAt"`
			Coupon      struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"coupon"`
		} `json:"settlement"`
		UserErrors []struct {
			Code  string   `json:"code"`
			Field []string `json:"field"`
		} `json:"userErrors"`
	}
	s := field[settlementPayload](t, e.do(e.token(user), lock, map[string]any{"c": shopCoupon, "o": order}), "lockCoupon")
	if s.Settlement == nil || s.Settlement.Status != "LOCKED" || s.Settlement.Discount != "3.00" || s.Settlement.Payable != "197.00" || s.Settlement.Coupon.Status != "LOCKED" || s.Settlement.LockExpires == nil {
		t.Fatalf("lock shop coupon = %+v", s)
	}
	s = field[settlementPayload](t, e.do(e.token(user), lock, map[string]any{"c": platformCoupon, "o": order}), "lockCoupon")
	if s.Settlement == nil || s.Settlement.Discount != "7.00" || s.Settlement.Payable != "190.00" {
		t.Fatalf("lock platform coupon after the shop one = %+v", s)
	}
	other := coupon.Actor{UserID: 78, Role: coupon.RoleUser}
	s = field[settlementPayload](t, e.do(e.token(other), lock, map[string]any{"c": shopCoupon, "o": order}), "lockCoupon")
	if s.Settlement != nil || len(s.UserErrors) != 1 || s.UserErrors[0].Code != "NOT_FOUND" {
		t.Fatalf("another user's coupon = %+v", s)
	}
	order["amount"] = "1.005"
	s = field[settlementPayload](t, e.do(e.token(user), lock, map[string]any{"c": shopCoupon, "o": order}), "lockCoupon")
	if len(s.UserErrors) != 1 || s.UserErrors[0].Code != "INVALID_INPUT" || len(s.UserErrors[0].Field) != 3 || s.UserErrors[0].Field[2] != "amount" {
		t.Fatalf("3 decimals = %+v", s)
	}

	// The user releases its own lock; the order system (SERVICE) pays and refunds.
	orders := e.token(coupon.Actor{Role: coupon.RoleService, Service: "orders"})
	ref := func(tok, op string) settlementPayload {
		m := `mutation($o: ID!, $c: ID!) { ` + op + `(input: {orderId: $o, couponId: $c}) { settlement { id status discount coupon { id status } } userErrors { code field message } } }`
		return field[settlementPayload](t, e.do(tok, m, map[string]any{"o": "5001", "c": shopCoupon}), op)
	}
	confirm := `mutation($o: ID!, $c: ID!, $a: Decimal!) { confirmCouponPayment(input: {orderId: $o, couponId: $c, orderAmount: $a}) {
	  settlement { id status discount coupon { id status } } userErrors { code field message } } }`
	if s := field[settlementPayload](t, e.do(orders, confirm, map[string]any{"o": "5001", "c": shopCoupon, "a": "200.00"}), "confirmCouponPayment"); s.Settlement == nil || s.Settlement.Status != "PAID" || s.Settlement.Coupon.Status != "USED" {
		t.Fatalf("confirm = %+v", s)
	}
	if s := ref(e.token(user), "releaseCoupon"); s.Settlement != nil || len(s.UserErrors) != 1 || s.UserErrors[0].Code != "INVALID_STATE" {
		t.Fatalf("release after payment = %+v", s)
	}
	if s := ref(orders, "refundCoupon"); s.Settlement == nil || s.Settlement.Status != "REFUNDED" || s.Settlement.Coupon.Status != "UNUSED" {
		t.Fatalf("refund = %+v", s)
	}
}
