package graph

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"coupond/auth"
	"coupond/coupon"
	"coupond/testutil/stack"
)

// benchLockQuery and benchConfirmQuery are the documents bench/checkout sends.
const (
	benchLockQuery = `mutation($c: ID!, $o: ID!) { lockCoupon(input: {couponId: $c, order: {orderId: $o, shopNumber: "1001", amount: "100.00"}}) {
  settlement { id status discount payable } userErrors { code message } } }`
	benchConfirmQuery = `mutation($c: ID!, $o: ID!) { confirmCouponPayment(input: {orderId: $o, couponId: $c, orderAmount: "100.00"}) {
  settlement { id status } userErrors { code message } } }`
)

// BenchmarkLockAndConfirm measures one checkout pair the way bench/checkout drives it: a
// lockCoupon POST with the user's token, then a confirmCouponPayment POST with the order system's,
// through the server's middleware and handler on real MySQL and Redis, each pair on a coupon of
// its own. allocs/op is the figure to watch in review; ns/op includes the round trips ("serial")
// or shares them among GOMAXPROCS×8 callers ("parallel"); "executor" is "parallel" with the plans
// off (HandlerConfig.ExecutorOnly). Profile with go test -cpuprofile.
func BenchmarkLockAndConfirm(b *testing.B) {
	s := stack.New(b, "graph", "bench_checkout", stack.Options{})
	signer := auth.NewSigner(testSecret)
	r := &Resolver{Templates: s.Templates, Wallet: s.Wallet, Checkout: s.Checkout, Codes: testCodes}
	planned, executor, _ := bothPaths(r, signer)
	tpl := s.Template(b, 10_000_000, 10_000_000, nil)
	const users, perUser = 64, 1000
	coupons := make([][]int64, users)
	tokens := make([]string, users)
	for u := range users {
		for _, c := range giveCoupons(b, s, int64(u+1), fmt.Sprintf("bc-%d", u), slices.Repeat([]*coupon.Template{tpl}, perUser)...) {
			coupons[u] = append(coupons[u], c.ID)
		}
		tokens[u] = tokenOf(b, signer, coupon.Actor{UserID: int64(u + 1), Role: coupon.RoleUser})
	}
	orders := tokenOf(b, signer, coupon.Actor{Role: coupon.RoleService, Service: "orders"})
	var seq atomic.Int64
	call := func(b *testing.B, h http.Handler, token, query, c, o, want string) {
		body := `{"query":"` + strings.ReplaceAll(strings.ReplaceAll(query, `"`, `\"`), "\n", `\n`) + `","variables":{"c":"` + c + `","o":"` + o + `"}}`
		req := httptest.NewRequest(http.MethodPost, "/query", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"status":"`+want+`"`) {
			b.Errorf("answered %d %s", w.Code, w.Body.String())
		}
	}
	pair := func(b *testing.B, h http.Handler) {
		n := seq.Add(1) - 1
		u := int(n % users)
		if int(n/users) >= perUser {
			b.Fatal("out of coupons")
		}
		c, o := strconv.FormatInt(coupons[u][n/users], 10), strconv.FormatInt(1_000_000+n, 10)
		call(b, h, tokens[u], benchLockQuery, c, o, "LOCKED")
		call(b, h, orders, benchConfirmQuery, c, o, "PAID")
	}
	pair(b, planned) // warms the caches, learns the plans
	b.Run("serial", serialAndParallel(planned, pair, false))
	b.Run("parallel", serialAndParallel(planned, pair, true))
	b.Run("executor", serialAndParallel(executor, pair, true))
}
