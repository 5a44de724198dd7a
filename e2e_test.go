package main

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"coupond/coupon"
)

// TestNodeClients runs e2e/http — the graphql-http audit, Apollo Client 3 and graphql-ws, clients
// nobody here wrote — against the whole app. It needs `npm ci` in e2e/http first:
// scripts/test.sh does that and sets COUPON_E2E_NODE=1.
func TestNodeClients(t *testing.T) {
	if os.Getenv("COUPON_E2E_NODE") == "" {
		t.Skip("set COUPON_E2E_NODE=1 after `npm ci --prefix e2e/http` (scripts/test.sh does both)")
	}
	a, srv := testApp(t)
	tok, err := a.signer.Issue(coupon.Actor{UserID: 4242, Role: coupon.RoleUser}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "--test", "--test-reporter=spec", "--test-concurrency=1")
	cmd.Dir = "e2e/http"
	cmd.Env = append(os.Environ(), "COUPOND_URL="+srv.URL, "COUPOND_USER_TOKEN="+tok)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test in e2e/http:\n%s", out)
	if err != nil {
		t.Fatalf("node tests: %v", err)
	}
}
