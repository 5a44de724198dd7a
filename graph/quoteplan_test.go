package graph

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"coupond/auth"
	"coupond/coupon"
	"coupond/coupon/checkout"
	"coupond/coupon/template"
	"coupond/ent/coupontemplate"
	"coupond/testutil/stack"

	"github.com/shopspring/decimal"
)

// quoteDocs are applicableCoupons documents a quote plan answers: bench/checkout's, aliases,
// __typename and every planned leaf, the order as one variable (with items) or inline with
// literals, a named operation.
var quoteDocs = []struct{ query, opName string }{
	{query: benchApplicableQuery},
	{query: `query Q($o: ID!) { q: applicableCoupons(order: {orderId: $o, shopNumber: "1001", amount: 100}) {
  __typename c: coupon { __typename id status validStartTime validEndTime } ok: applicable discount code reason } }`, opName: "Q"},
	{query: `query($order: OrderInput!) { applicableCoupons(order: $order) { reason code discount applicable coupon { validEndTime id } } }`},
	{query: `query($o: ID!) { applicableCoupons(order: {orderId: $o, amount: "30.00", items: [{goods: "g1", amount: "30.00", shopNumber: "1001"}]}) { coupon { id } discount code } }`},
}

// unplannedQuoteDocs pass validation but are answered by the executor only.
var unplannedQuoteDocs = []string{
	`query($o: ID!) { applicableCoupons(order: {orderId: $o, shopNumber: "1001", amount: "100.00"}) { coupon { id code } applicable } }`,
	`query($o: ID!) { applicableCoupons(order: {orderId: $o, shopNumber: "1001", amount: "100.00"}) { coupon { template { name } } } }`,
	`query($o: ID!) { applicableCoupons(order: {orderId: $o, shopNumber: "1001", amount: "100.00"}) { ...Q } } fragment Q on CouponQuote { applicable }`,
	`query($o: ID!) { applicableCoupons(order: {orderId: $o, shopNumber: "1001", amount: "100.00"}) { applicable } viewer { role } }`,
	`query($o: ID!, $s: Boolean!) { applicableCoupons(order: {orderId: $o, shopNumber: "1001", amount: "100.00"}) { applicable @include(if: $s) } }`,
}

// TestQuotePlanAnswersAsTheExecutor holds the quote plans to the executor, byte for byte: every
// planned document (quoteDocs) over a wallet of applicable coupons, a threshold not met, another
// shop's coupon and one locked by another order; top-level errors (no token, the wrong role, a
// malformed order id, an invalid order, items that do not add up); numbers where an ID or a
// Decimal goes; variables gqlgen refuses before a plan sees them. It also checks that the planned
// documents are planned and the others are not.
func TestQuotePlanAnswersAsTheExecutor(t *testing.T) {
	s := stack.New(t, "graph", "quoteplan", stack.Options{})
	signer := auth.NewSigner(testSecret)
	planned, executor, plans := bothPaths(&Resolver{Templates: s.Templates, Wallet: s.Wallet, Checkout: s.Checkout, Codes: testCodes}, signer)
	token := func(a coupon.Actor) string { return tokenOf(t, signer, a) }
	const userID = 7
	user := token(coupon.Actor{UserID: userID, Role: coupon.RoleUser})

	d := func(v string) *decimal.Decimal { x := decimal.RequireFromString(v); return &x }
	five := s.Template(t, 1000, 1000, nil)
	threshold := s.Template(t, 1000, 1000, func(in *template.CreateInput) {
		in.Type, in.ThresholdAmount, in.DiscountAmount = coupontemplate.TypeTHRESHOLD_OFF, d("500"), d("50")
	})
	percent := s.Template(t, 1000, 1000, func(in *template.CreateInput) {
		in.Type, in.DiscountAmount, in.DiscountRate, in.MaxDiscountAmount = coupontemplate.TypePERCENT_OFF, nil, d("0.85"), d("12.5")
	})
	ctx := context.Background()
	issued := giveCoupons(t, s, userID, "qp", five, five, threshold, percent, five)
	o := checkout.Order{ID: 77, Shop: 1001, Amount: decimal.NewFromInt(40)}
	if _, err := s.Checkout.Lock(ctx, coupon.Actor{UserID: userID, Role: coupon.RoleUser}, issued[4].ID, o); err != nil {
		t.Fatal(err)
	}

	for i, doc := range quoteDocs {
		vars := func(orderID any) map[string]any {
			if strings.Contains(doc.query, "$order") {
				return map[string]any{"order": map[string]any{"orderId": orderID, "shopNumber": "1001", "amount": "60.50",
					"items": []any{map[string]any{"goods": "g", "amount": "60.50"}}}}
			}
			return map[string]any{"o": orderID}
		}
		type quoteCase struct {
			name, token string
			vars        map[string]any
			executor    bool // a plan leaves it to the executor
		}
		cases := []quoteCase{
			{name: "quotes", token: user, vars: vars("1")},
			{name: "the locking order", token: user, vars: vars("77")},
			{name: "number order id", token: user, vars: vars(json.Number("5"))},
			{name: "no token", vars: vars("1")},
			{name: "merchant", token: token(coupon.Actor{UserID: 9, Role: coupon.RoleMerchant, Shop: 1001}), vars: vars("1")},
			{name: "malformed order id", token: user, vars: vars("abc")},
			{name: "list order id", token: user, vars: vars([]any{"1"}), executor: true},
			{name: "no variables", token: user, executor: true},
		}
		if strings.Contains(doc.query, "$order") {
			order := func(o map[string]any) map[string]any { return map[string]any{"order": o} }
			cases = append(cases,
				quoteCase{name: "items that do not add up", token: user, vars: order(map[string]any{"orderId": "1", "amount": "60.50",
					"items": []any{map[string]any{"goods": "g", "amount": "10", "shopNumber": "1001"}}})},
				quoteCase{name: "one item, no list", token: user, vars: order(map[string]any{"orderId": "1", "amount": 10,
					"items": map[string]any{"goods": "g", "amount": json.Number("10"), "shopNumber": "1001"}})},
				quoteCase{name: "a negative amount", token: user, vars: order(map[string]any{"orderId": "1", "amount": "-3"})},
				quoteCase{name: "a malformed amount", token: user, vars: order(map[string]any{"orderId": "1", "amount": "3x"}), executor: true},
				quoteCase{name: "a malformed shop", token: user, vars: order(map[string]any{"orderId": "1", "shopNumber": "x", "amount": "3"})},
				quoteCase{name: "an unknown field", token: user, vars: order(map[string]any{"orderId": "1", "amount": "3", "x": 1}), executor: true},
			)
		}
		post(t, planned, user, doc.opName, doc.query, vars("1")) // seen once: learned
		if p, ok := plans.known.Get(doc.query); !ok || p == nil {
			t.Fatalf("doc %d: no plan learned", i)
		}
		for _, c := range cases {
			if usesPlan := planTakes(t, doc.query, doc.opName, c.vars); usesPlan == c.executor {
				t.Errorf("doc %d, %s: the plan takes it: %v, want %v", i, c.name, usesPlan, !c.executor)
			}
			want := post(t, executor, c.token, doc.opName, doc.query, c.vars)
			if got := post(t, planned, c.token, doc.opName, doc.query, c.vars); got != want {
				t.Errorf("doc %d, %s:\nplan     %s\nexecutor %s", i, c.name, got, want)
			}
		}
	}
	for i, q := range unplannedQuoteDocs {
		v := map[string]any{"o": "1", "s": true}
		got, want := post(t, planned, user, "", q, v), post(t, executor, user, "", q, v)
		if strings.Contains(want, `"errors"`) || got != want {
			t.Fatalf("unplanned doc %d: plan %s, executor %s", i, got, want)
		}
		if p, ok := plans.known.Get(q); !ok || p != nil {
			t.Errorf("unplanned doc %d: learned %v, plan %v; want a nil plan", i, ok, p)
		}
	}
}
