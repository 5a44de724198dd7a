package graph

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"coupond/auth"
	"coupond/coupon"
	"coupond/testutil/stack"
)

// benchRedeemQuery is the document bench/loadgen sends.
const benchRedeemQuery = `mutation($t:ID!,$r:String){redeemCoupon(input:{templateId:$t,requestId:$r}){redemption{id status}userErrors{code}}}`

// BenchmarkRedeemCoupon measures the GraphQL claim path the way a client drives it: a POST of
// bench/loadgen's redeemCoupon body with a bearer token through the server's middleware and
// handler (auth, transports, query cache, limits, the claim plan, JSON) and the async claim script
// on real Redis, with a unique requestId per claim. allocs/op is the figure to watch in review;
// ns/op includes the Redis round trip ("serial") or shares it with concurrent claims ("parallel",
// GOMAXPROCS×8 callers, as the batcher sees under load). "executor" is "parallel" with the claim
// plans off (HandlerConfig.ExecutorOnly): what gqlgen's executor costs on top.
func BenchmarkRedeemCoupon(b *testing.B) {
	s := stack.New(b, "graph", "bench_redeem", stack.Options{})
	signer := auth.NewSigner(testSecret)
	r := &Resolver{Templates: s.Templates, Redeemer: s.Redeemer, Wallet: s.Wallet, Codes: testCodes}
	planned, executor, _ := bothPaths(r, signer)
	tpl := s.Template(b, 10_000_000, 1_000_000, nil)
	tokens := make([]string, 1000)
	for i := range tokens {
		tok, err := signer.Issue(coupon.Actor{UserID: int64(i + 1), Role: coupon.RoleUser}, time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := signer.Parse(tok); err != nil { // verified once, as a client's token is after its first request
			b.Fatal(err)
		}
		tokens[i] = tok
	}
	tid := strconv.FormatInt(tpl.ID, 10)
	var seq atomic.Int64
	claim := func(b *testing.B, h http.Handler) {
		n := seq.Add(1)
		body := `{"query":"` + strings.ReplaceAll(benchRedeemQuery, `"`, `\"`) + `","variables":{"t":"` + tid + `","r":"b` + strconv.FormatInt(n, 10) + `"}}`
		req := httptest.NewRequest(http.MethodPost, "/query", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tokens[n%int64(len(tokens))])
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"status":"PENDING"`) {
			b.Errorf("claim %d answered %d %s", n, w.Code, w.Body.String())
		}
	}
	claim(b, planned) // loads the script, warms the caches, learns the plan
	b.Run("serial", serialAndParallel(planned, claim, false))
	b.Run("parallel", serialAndParallel(planned, claim, true))
	b.Run("executor", serialAndParallel(executor, claim, true))
}
