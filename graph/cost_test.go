package graph

import (
	"fmt"
	"strings"
	"testing"
)

// aliases is a query of n aliases of field.
func aliases(n int, field string) string {
	var b strings.Builder
	b.WriteString("{ ")
	for i := range n {
		fmt.Fprintf(&b, "a%d: %s ", i, field)
	}
	b.WriteString("}")
	return b.String()
}

// costlyFields are the expensive resolvers and list fields of the cost model, each with a small
// selection.
var costlyFields = map[string]string{
	"shopStats":             `shopStats(shopNumber: "1001") { usedCount }`,
	"templateStats":         `templateStats(templateId: "1") { usedCount }`,
	"bestCouponCombination": `bestCouponCombination(order: {orderId: "1", amount: "10.00"}) { discount }`,
	"applicableCoupons":     `applicableCoupons(order: {orderId: "1", amount: "10.00"}) { applicable }`,
	"reconciliation":        `reconciliation(templateId: "1") { balanced }`,
	"templateLog":           `templateLog(templateId: "1") { totalCount }`,
	"failures":              `couponTask(id: "1") { failures { totalCount } }`,
	"couponTemplates":       `couponTemplates(first: 100) { edges { node { id name } } }`,
}

// 100 aliases of any expensive field are refused with COMPLEXITY_LIMIT_EXCEEDED before anything
// runs; one alias passes the limit (whatever the resolver then answers).
func TestCostModelRefusesAliasStorms(t *testing.T) {
	e := newEnv(t, "cost")
	tok := e.token(shopA)
	for name, f := range costlyFields {
		if r := e.do(tok, aliases(100, f), nil); r.code() != codeComplexity {
			t.Errorf("100 × %s: code %q (%+v), want %s", name, r.code(), r.Errors, codeComplexity)
		}
		if r := e.do(tok, aliases(1, f), nil); r.code() == codeComplexity {
			t.Errorf("1 × %s: refused: %+v", name, r.Errors)
		}
	}
}

// A page size given by a variable weighs what it asks for on every request: the same document is
// accepted with first 1 and refused with first 100, in that order and the other (the limits'
// cache does not keep the first request's figure).
func TestCostFollowsPageVariables(t *testing.T) {
	e := newEnv(t, "cost_vars")
	tok := e.token(user)
	q := `query($n: Int) { ` + strings.TrimPrefix(aliases(8,
		`myCoupons(first: $n) { edges { node { id code status validStartTime validEndTime receivedAt } } totalCount }`), "{ ")
	for _, order := range [][]int{{1, 100}, {100, 1}} {
		for _, n := range order {
			r := e.do(tok, q, map[string]any{"n": n})
			if refused := r.code() == codeComplexity; refused != (n == 100) || n == 1 && len(r.Errors) > 0 {
				t.Errorf("first %d (order %v): refused %v: %+v", n, order, refused, r.Errors)
			}
		}
	}
}
