package graph

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"coupond/auth"
	"coupond/coupon"
	"coupond/coupon/issue"
	"coupond/ent"
	"coupond/ent/usercoupon"
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
	ctx := context.Background()
	const userID = 7
	tx, err := s.DB.Tx(ctx)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	var rows []*ent.UserCouponCreate
	for i := range 200 {
		rows = append(rows, issue.Create(tx, issue.Coupon{UserID: userID, TemplateID: tpl.ID, RedemptionID: fmt.Sprintf("ab-%d", i),
			ReceiveCount: i + 1, Source: usercoupon.SourceDISTRIBUTION, At: now.Add(-time.Second), End: tpl.ValidEnd}))
	}
	if err := tx.UserCoupon.CreateBulk(rows...).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
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
