package graph

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"coupond/auth"
	"coupond/coupon"
	"coupond/testutil/stack"
)

// settlementDoc is a settlement mutation document a plan answers, with the variables it takes
// for a coupon, an order and the order's amount (a Decimal as the client sends it).
type settlementDoc struct {
	query, opName string
	vars          func(c, o string, amount any) map[string]any
}

// refVars are the variables $c and $o of an inline input; inputVars the whole input as $in.
func refVars(c, o string, _ any) map[string]any { return map[string]any{"c": c, "o": o} }

func inputVars(in func(c, o string, amount any) map[string]any) func(c, o string, amount any) map[string]any {
	return func(c, o string, amount any) map[string]any { return map[string]any{"in": in(c, o, amount)} }
}

// lockDocs, confirmDocs, releaseDocs and refundDocs are what the settlement plans answer:
// bench/checkout's documents, aliases, __typename and every planned leaf, the input inline
// (variables, literals, items) or as one variable, a named operation.
var (
	lockDocs = []settlementDoc{
		{query: benchLockQuery, vars: refVars},
		{query: `mutation L($c: ID!, $o: ID!, $a: Decimal!, $s: String) { l: lockCoupon(input: {couponId: $c, order: {orderId: $o, shopNumber: $s, amount: $a,
  items: [{goods: "g", amount: $a, shopNumber: $s}]}}) { __typename s: settlement { __typename id orderId status orderAmount discount payable
  lockExpiresAt paidAt refundedAt } e: userErrors { __typename code field message } } }`, opName: "L",
			vars: func(c, o string, a any) map[string]any { return map[string]any{"c": c, "o": o, "a": a, "s": "1001"} }},
		{query: `mutation($in: LockCouponInput!) { lockCoupon(input: $in) { userErrors { message code field } settlement { payable status id } } }`,
			vars: inputVars(func(c, o string, a any) map[string]any {
				return map[string]any{"couponId": c, "order": map[string]any{"orderId": o, "shopNumber": "1001", "amount": a}}
			})},
	}
	confirmDocs = []settlementDoc{
		{query: benchConfirmQuery, vars: refVars},
		{query: `mutation C($c: ID!, $o: ID!, $a: Decimal!) { c: confirmCouponPayment(input: {orderId: $o, couponId: $c, orderAmount: $a}) { __typename
  settlement { id orderId status orderAmount discount payable lockExpiresAt paidAt refundedAt __typename } userErrors { code field message } } }`, opName: "C",
			vars: func(c, o string, a any) map[string]any { return map[string]any{"c": c, "o": o, "a": a} }},
		{query: `mutation($in: ConfirmCouponPaymentInput!) { confirmCouponPayment(input: $in) { settlement { status paidAt } userErrors { code field } } }`,
			vars: inputVars(func(c, o string, a any) map[string]any {
				return map[string]any{"orderId": o, "couponId": c, "orderAmount": a}
			})},
	}
	releaseDocs = []settlementDoc{
		{query: `mutation($c: ID!, $o: ID!) { releaseCoupon(input: {orderId: $o, couponId: $c}) { settlement { id status lockExpiresAt refundedAt } userErrors { code message } } }`,
			vars: refVars},
	}
	refundDocs = []settlementDoc{
		{query: `mutation($in: SettlementRefInput!) { r: refundCoupon(input: $in) { settlement { status refundedAt paidAt } userErrors { code field message } } }`,
			vars: inputVars(func(c, o string, _ any) map[string]any { return map[string]any{"orderId": o, "couponId": c} })},
	}
)

// unplannedSettlementDocs pass validation but are answered by the executor only.
var unplannedSettlementDocs = []string{
	`mutation($c: ID!, $o: ID!) { lockCoupon(input: {couponId: $c, order: {orderId: $o, shopNumber: "1001", amount: "100.00"}}) { settlement { id coupon { id } } userErrors { code } } }`,
	`mutation($c: ID!, $o: ID!) { confirmCouponPayment(input: {orderId: $o, couponId: $c, orderAmount: "100.00"}) { ...P } } fragment P on SettlementPayload { userErrors { code } }`,
	`mutation($c: ID!, $o: ID!, $s: Boolean!) { releaseCoupon(input: {orderId: $o, couponId: $c}) { settlement @include(if: $s) { id } userErrors { code } } }`,
}

// TestSettlementPlanAnswersAsTheExecutor holds the settlement plans to the executor, byte for
// byte: every planned document, for a lock, a payment, a release and a refund (repeats of the
// executor's, so the same settlement), refusals (ALREADY_LOCKED, NOT_FOUND, AMOUNT_MISMATCH,
// INVALID_STATE, a malformed shop), top-level errors (no token, the wrong role, a malformed coupon
// id), numbers where an ID or a Decimal goes, and variables gqlgen refuses before a plan sees them
// (a list where an ID goes, none at all). It also checks that the planned documents are planned
// and the others are not.
func TestSettlementPlanAnswersAsTheExecutor(t *testing.T) {
	s := stack.New(t, "graph", "settleplan", stack.Options{})
	signer := auth.NewSigner(testSecret)
	planned, executor, plans := bothPaths(&Resolver{Templates: s.Templates, Wallet: s.Wallet, Checkout: s.Checkout, Codes: testCodes}, signer)
	user := tokenOf(t, signer, coupon.Actor{UserID: 7, Role: coupon.RoleUser})
	orders := tokenOf(t, signer, coupon.Actor{Role: coupon.RoleService, Service: "orders"})
	merchant := tokenOf(t, signer, coupon.Actor{UserID: 9, Role: coupon.RoleMerchant, Shop: 1001})

	issued := giveCoupons(t, s, 7, "sp", slices.Repeat([]*coupon.Template{s.Template(t, 1000, 1000, nil)}, 40)...)
	// couponID sets the coupon's id in a lock's variables to v.
	couponID := func(vars map[string]any, v any) map[string]any {
		if in, ok := vars["in"].(map[string]any); ok {
			in["couponId"] = v
		} else {
			vars["c"] = v
		}
		return vars
	}
	next := 0
	fresh := func() string { next++; return strconv.FormatInt(issued[next-1].ID, 10) }
	var order int64 = 500
	newOrder := func() string { order++; return strconv.FormatInt(order, 10) }

	type step struct {
		name, token string
		vars        map[string]any
		executor    bool // a plan leaves it to the executor
	}
	// same sends each step to the executor (it acts), again to the executor and to the plan (the
	// repeat: both answer the same state), and compares the two repeats.
	same := func(docName string, d settlementDoc, steps []step) {
		t.Helper()
		post(t, planned, "", d.opName, d.query, d.vars("1", "1", "1")) // seen once: learned
		if p, ok := plans.known.Get(d.query); !ok || p == nil {
			t.Fatalf("%s: no plan learned", docName)
		}
		for _, c := range steps {
			post(t, executor, c.token, d.opName, d.query, c.vars)
			want := post(t, executor, c.token, d.opName, d.query, c.vars)
			if usesPlan := planTakes(t, d.query, d.opName, c.vars); usesPlan == c.executor {
				t.Errorf("%s, %s: the plan takes it: %v, want %v", docName, c.name, usesPlan, !c.executor)
			}
			if got := post(t, planned, c.token, d.opName, d.query, c.vars); got != want {
				t.Errorf("%s, %s:\nplan     %s\nexecutor %s", docName, c.name, got, want)
			}
		}
	}
	type pair struct{ c, o string }
	var locked, paid []pair // by the lock documents, for the others
	for i, d := range lockDocs {
		c, o, other := fresh(), newOrder(), fresh()
		mine := pair{c, o}
		steps := []step{
			{name: "locked", token: user, vars: d.vars(c, o, "100.00")},
			{name: "locked by another order", token: user, vars: d.vars(c, newOrder(), "100.00")},
			{name: "unknown coupon", token: user, vars: d.vars("999999999", o, "100.00")},
			{name: "no token", vars: d.vars(other, o, "100.00")},
			{name: "merchant", token: merchant, vars: d.vars(other, o, "100.00")},
			{name: "malformed coupon id", token: user, vars: d.vars("abc", o, "100.00")},
			{name: "number ids", token: user, vars: couponID(d.vars(other, o, "100.00"), json.Number(other))},
			{name: "list coupon id", token: user, vars: couponID(d.vars(other, o, "100.00"), []any{other}), executor: true},
			{name: "no variables", token: user, executor: true},
		}
		if strings.Contains(d.query, "$a") || strings.Contains(d.query, "$in") {
			steps = append(steps,
				step{name: "number amount", token: user, vars: d.vars(fresh(), newOrder(), json.Number("60"))},
				step{name: "negative amount", token: user, vars: d.vars(fresh(), newOrder(), "-3")},
				step{name: "malformed amount", token: user, vars: d.vars(fresh(), newOrder(), "3x"), executor: true})
		}
		if strings.Contains(d.query, "$in") {
			bad := d.vars(fresh(), newOrder(), "100.00")
			bad["in"].(map[string]any)["order"].(map[string]any)["shopNumber"] = "x"
			steps = append(steps, step{name: "malformed shop", token: user, vars: bad})
		}
		same(fmt.Sprintf("lock doc %d", i), d, steps)
		locked = append(locked, mine)
	}
	for i, d := range confirmDocs {
		l := locked[i]
		steps := []step{
			{name: "amount mismatch", token: orders, vars: d.vars(l.c, l.o, "99.00")},
			{name: "paid", token: orders, vars: d.vars(l.c, l.o, "100.00")},
			{name: "the user", token: user, vars: d.vars(l.c, l.o, "100.00")},
			{name: "no settlement", token: orders, vars: d.vars(l.c, newOrder(), "100.00")},
			{name: "number amount", token: orders, vars: d.vars(l.c, l.o, json.Number("100"))},
			{name: "malformed order id", token: orders, vars: d.vars(l.c, "x", "100.00")},
			{name: "no variables", token: orders, executor: true},
		}
		if d.query == benchConfirmQuery { // its amount is a literal
			steps[0].vars, steps[4].vars = d.vars(l.c, newOrder(), ""), d.vars(l.c, newOrder(), "")
		}
		same(fmt.Sprintf("confirm doc %d", i), d, steps)
		paid = append(paid, l)
	}
	for i, d := range releaseDocs {
		c, o := fresh(), newOrder()
		post(t, executor, user, "", benchLockQuery, map[string]any{"c": c, "o": o})
		same(fmt.Sprintf("release doc %d", i), d, []step{
			{name: "released", token: user, vars: d.vars(c, o, nil)},
			{name: "by the order system", token: orders, vars: d.vars(c, o, nil)},
			{name: "paid", token: orders, vars: d.vars(paid[0].c, paid[0].o, nil)},
			{name: "merchant", token: merchant, vars: d.vars(c, o, nil)},
		})
	}
	for i, d := range refundDocs {
		same(fmt.Sprintf("refund doc %d", i), d, []step{
			{name: "refunded", token: orders, vars: d.vars(paid[1].c, paid[1].o, nil)},
			{name: "not paid", token: orders, vars: d.vars(locked[2].c, locked[2].o, nil)},
			{name: "the user", token: user, vars: d.vars(paid[1].c, paid[1].o, nil)},
		})
	}
	for i, q := range unplannedSettlementDocs {
		v := map[string]any{"c": fresh(), "o": newOrder(), "s": true}
		got, want := post(t, planned, orders, "", q, v), post(t, executor, orders, "", q, v)
		if strings.Contains(want, `"errors"`) || got != want {
			t.Fatalf("unplanned doc %d: plan %s, executor %s", i, got, want)
		}
		if p, ok := plans.known.Get(q); !ok || p != nil {
			t.Errorf("unplanned doc %d: learned %v, plan %v; want a nil plan", i, ok, p)
		}
	}
}

// TestConcurrentPlannedSettlementsBalance: 16 clients race through the planned path: each of 20
// coupons is locked by 4 orders at once, then each of the 4 orders confirms it. The books balance:
// exactly one order locks each coupon and only that order's payment is PAID; MySQL holds every
// coupon USED for that order, one PAID settlement per coupon and no other live one. With
// COUPON_CLAIM_PLANS=off it runs through the executor.
func TestConcurrentPlannedSettlementsBalance(t *testing.T) {
	s := stack.New(t, "graph", "settleplan_books", stack.Options{})
	signer := auth.NewSigner(testSecret)
	h, plans := newHandler(&Resolver{Templates: s.Templates, Wallet: s.Wallet, Checkout: s.Checkout, Codes: testCodes},
		HandlerConfig{Signer: signer, ComplexityLimit: 500, DepthLimit: 15, ExecutorOnly: plansOff})
	h = signer.Middleware(h)
	user := tokenOf(t, signer, coupon.Actor{UserID: 7, Role: coupon.RoleUser})
	orders := tokenOf(t, signer, coupon.Actor{Role: coupon.RoleService, Service: "orders"})
	const coupons, racers = 20, 4
	issued := giveCoupons(t, s, 7, "books", slices.Repeat([]*coupon.Template{s.Template(t, 1000, 1000, nil)}, coupons)...)
	status := func(query, token string, c, o int64) string {
		out := post(t, h, token, "", query, map[string]any{"c": strconv.FormatInt(c, 10), "o": strconv.FormatInt(o, 10)})
		var r struct {
			Data map[string]struct {
				Settlement *struct{ Status string }
				UserErrors []struct{ Code string }
			}
		}
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &r); err != nil {
			t.Errorf("%s", out)
		}
		for _, p := range r.Data {
			if p.Settlement != nil {
				return p.Settlement.Status
			}
			if len(p.UserErrors) == 1 {
				return p.UserErrors[0].Code
			}
		}
		return out
	}
	post(t, h, user, "", benchLockQuery, map[string]any{"c": "1", "o": "1"}) // learns the plans (an unknown coupon)
	post(t, h, orders, "", benchConfirmQuery, map[string]any{"c": "1", "o": "1"})
	if !plansOff {
		for _, q := range []string{benchLockQuery, benchConfirmQuery} {
			if p, ok := plans.known.Get(q); !ok || p == nil {
				t.Fatal("the bench documents have no plan")
			}
		}
	}
	type job struct{ coupon, order int64 }
	run := func(query, token string) map[job]string {
		jobs := make(chan job)
		var mu sync.Mutex
		answers := map[job]string{}
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				for j := range jobs {
					a := status(query, token, j.coupon, j.order)
					mu.Lock()
					answers[j] = a
					mu.Unlock()
				}
			})
		}
		for k := range racers {
			for i, c := range issued {
				jobs <- job{c.ID, int64(10_000 + i*racers + k)}
			}
		}
		close(jobs)
		wg.Wait()
		return answers
	}
	locks, pays := run(benchLockQuery, user), run(benchConfirmQuery, orders)
	winner := map[int64]int64{}
	for j, a := range locks {
		switch a {
		case "LOCKED":
			if o, ok := winner[j.coupon]; ok {
				t.Fatalf("coupon %d locked by orders %d and %d", j.coupon, o, j.order)
			}
			winner[j.coupon] = j.order
		case "ALREADY_LOCKED":
		default:
			t.Fatalf("lock of coupon %d for order %d answered %s", j.coupon, j.order, a)
		}
	}
	for j, a := range pays {
		if want := winner[j.coupon] == j.order; (a == "PAID") != want {
			t.Fatalf("payment of coupon %d by order %d answered %s (its lock's order: %d)", j.coupon, j.order, a, winner[j.coupon])
		}
	}
	if len(winner) != coupons {
		t.Fatalf("%d coupons locked, want %d", len(winner), coupons)
	}
	for _, c := range issued {
		var st string
		var order int64
		if err := s.SQL.QueryRow(`SELECT status, order_id FROM user_coupon WHERE id = ?`, c.ID).Scan(&st, &order); err != nil || st != "USED" || order != winner[c.ID] {
			t.Fatalf("coupon %d is %s for order %d (%v), want USED for %d", c.ID, st, order, err, winner[c.ID])
		}
		var paid, live int
		if err := s.SQL.QueryRow(`SELECT COUNT(CASE WHEN status = 'PAID' THEN 1 END), COUNT(CASE WHEN status IN ('LOCKED', 'PAID') THEN 1 END)
			FROM coupon_settlement WHERE coupon_id = ?`, c.ID).Scan(&paid, &live); err != nil || paid != 1 || live != 1 {
			t.Fatalf("coupon %d: %d PAID and %d live settlements (%v), want 1 and 1", c.ID, paid, live, err)
		}
	}
}
