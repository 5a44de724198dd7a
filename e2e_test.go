package main

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"coupond/coupon"
)

// TestNodeClients runs e2e/http — the graphql-http audit, Apollo Client 3 and graphql-ws, clients
// nobody here wrote — against the whole app, with a worker (distribution tasks run). It needs `npm ci` in e2e/http first:
// scripts/test.sh does that and sets COUPON_E2E_NODE=1.
func TestNodeClients(t *testing.T) {
	if os.Getenv("COUPON_E2E_NODE") == "" {
		t.Skip("set COUPON_E2E_NODE=1 after `npm ci --prefix e2e/http` (scripts/test.sh does both)")
	}
	t.Setenv("COUPON_DISTRIBUTION_BATCH", "5") // several progress pushes for e2e/http/distribution.test.mjs
	a, srv := testApp(t)
	w, err := a.startWorker() // distribution tasks run
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.stop)
	var toks [3]string
	for i, actor := range []coupon.Actor{
		{UserID: 4242, Role: coupon.RoleUser},
		{UserID: 7, Role: coupon.RoleMerchant, Shop: 1001},
		{UserID: 8, Role: coupon.RoleMerchant, Shop: 2002},
	} {
		if toks[i], err = a.signer.Issue(actor, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("node", "--test", "--test-reporter=spec", "--test-concurrency=1")
	cmd.Dir = "e2e/http"
	cmd.Env = append(os.Environ(), "COUPOND_URL="+srv.URL, "COUPOND_USER_TOKEN="+toks[0],
		"COUPOND_MERCHANT_TOKEN="+toks[1], "COUPOND_OTHER_MERCHANT_TOKEN="+toks[2])
	out, err := cmd.CombinedOutput()
	t.Logf("node --test in e2e/http:\n%s", out)
	if err != nil {
		t.Fatalf("node tests: %v", err)
	}
}
