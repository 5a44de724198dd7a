package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestPlaygroundInChromium loads the playground from the real server in headless Chromium with
// every request outside the server refused, and runs a query from it with a MERCHANT token typed
// into the headers editor (e2e/browser/playground.mjs). It needs node, `npm ci` in e2e/browser
// and Debian's chromium; scripts/test.sh provides them and sets COUPON_TEST_BROWSER=1, which
// makes a missing one a failure rather than a skip.
func TestPlaygroundInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium; skipped with -short")
	}
	chromium := browserNeeds(t, filepath.Join("e2e", "browser"))
	a, srv := testApp(t)
	ctx := context.Background()
	if err := a.seedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	token, err := a.signer.Issue(demoMerchant, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "playground.mjs")
	cmd.Dir = filepath.Join("e2e", "browser")
	cmd.Env = append(os.Environ(), "PLAYGROUND_URL="+srv.URL+"/", "PLAYGROUND_TOKEN="+token,
		"PLAYGROUND_EXPECT="+demoTemplateName, "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("playground in Chromium: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// browserNeeds returns Debian's chromium ($CHROMIUM, default /usr/bin/chromium) after checking
// what a browser test needs: node, playwright-core installed in dir and the files named. A missing
// one skips the test, or fails it under COUPON_TEST_BROWSER=1 (scripts/test.sh provides them).
func browserNeeds(t *testing.T, dir string, files ...string) string {
	t.Helper()
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	_, nodeErr := exec.LookPath("node")
	errs := []error{nodeErr}
	for _, f := range append([]string{filepath.Join(dir, "node_modules", "playwright-core"), chromium}, files...) {
		_, err := os.Stat(f)
		errs = append(errs, err)
	}
	for _, err := range errs {
		if err == nil {
			continue
		}
		if os.Getenv("COUPON_TEST_BROWSER") == "1" {
			t.Fatalf("COUPON_TEST_BROWSER=1 but: %v", err)
		}
		t.Skipf("%v (scripts/test.sh installs node packages and chromium)", err)
	}
	return chromium
}
