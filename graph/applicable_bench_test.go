package graph

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"coupond/auth"
	"coupond/coupon"
	"coupond/testutil/stack"
)

// benchApplicableQuery is the document bench/checkout sends.
const benchApplicableQuery = `query($o: ID!) { applicableCoupons(order: {orderId: $o, shopNumber: "1001", amount: "100.00"}) { coupon { id } applicable discount code reason } }`

// BenchmarkApplicableCoupons measures applicableCoupons on a 200-coupon wallet through the server's
// middleware and handler, as bench/checkout drives it: what one call costs (ns/op, allocs/op) and
// where (go test -cpuprofile).
func BenchmarkApplicableCoupons(b *testing.B) {
	s := stack.New(b, "graph", "bench_applicable", stack.Options{})
	signer := auth.NewSigner(testSecret)
	h := signer.Middleware(NewHandler(&Resolver{Templates: s.Templates, Wallet: s.Wallet, Checkout: s.Checkout},
		HandlerConfig{Signer: signer, ComplexityLimit: 500, DepthLimit: 15}))
	tpl := s.Template(b, 10_000_000, 10_000_000, nil)
	const userID = 7
	giveCoupons(b, s, userID, "ab", slices.Repeat([]*coupon.Template{tpl}, 200)...)
	tok, err := signer.Issue(coupon.Actor{UserID: userID, Role: coupon.RoleUser}, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	body := `{"query":"` + strings.ReplaceAll(benchApplicableQuery, `"`, `\"`) + `","variables":{"o":"1"}}`
	call := func(b *testing.B) {
		req := httptest.NewRequest(http.MethodPost, "/query", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK || strings.Count(w.Body.String(), `"applicable":true`) != 200 {
			b.Fatalf("applicableCoupons answered %d %.300s", w.Code, w.Body.String())
		}
	}
	call(b) // warms the caches
	b.ReportAllocs()
	for b.Loop() {
		call(b)
	}
}
