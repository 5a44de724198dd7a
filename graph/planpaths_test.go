package graph

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"coupond/auth"
	"coupond/coupon"
	"coupond/coupon/issue"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/testutil/stack"
)

// bothPaths returns r's handler with the plans and with the executor only (the reference the
// plans are held to), each behind signer's middleware, and the plans.
func bothPaths(r *Resolver, signer *auth.Signer) (planned, executor http.Handler, plans *claimPlans) {
	cfg := HandlerConfig{Signer: signer, ComplexityLimit: 500, DepthLimit: 15}
	planned, plans = newHandler(r, cfg)
	cfg.ExecutorOnly = true
	executor, _ = newHandler(r, cfg)
	return signer.Middleware(planned), signer.Middleware(executor), plans
}

// tokenOf is a bearer token of a for an hour.
func tokenOf(t testing.TB, signer *auth.Signer, a coupon.Actor) string {
	t.Helper()
	tok, err := signer.Issue(a, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// giveCoupons issues the user one UNUSED coupon of each template of tpls (a second ago, valid to
// the template's end; redemption ids prefix-0, prefix-1, …), in one transaction.
func giveCoupons(t testing.TB, s *stack.Stack, userID int64, prefix string, tpls ...*coupon.Template) []*ent.UserCoupon {
	t.Helper()
	ctx := context.Background()
	tx, err := s.DB.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	rows := make([]*ent.UserCouponCreate, len(tpls))
	for i, tpl := range tpls {
		rows[i] = issue.Create(tx, issue.Coupon{UserID: userID, TemplateID: tpl.ID, RedemptionID: fmt.Sprintf("%s-%d", prefix, i),
			ReceiveCount: i + 1, Source: usercoupon.SourceDISTRIBUTION, At: now.Add(-time.Second), End: tpl.ValidEnd})
	}
	issued, err := tx.UserCoupon.CreateBulk(rows...).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return issued
}

// serialAndParallel is a benchmark of work on h, one call after the other, or (parallel) shared
// among GOMAXPROCS×8 callers, allocations reported.
func serialAndParallel(h http.Handler, work func(b *testing.B, h http.Handler), parallel bool) func(b *testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		if !parallel {
			for b.Loop() {
				work(b, h)
			}
			return
		}
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				work(b, h)
			}
		})
	}
}
