package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
)

// TestAdminInChromium runs admin/web/e2e/run.mjs: the web admin at /admin/ in headless Chromium
// against the whole app with a worker (distribution batches of 2 rows, 300 ms apart, so progress is
// pushed several times), signed in as a merchant with /admin/#token=. The script distributes
// coupon/distribution/testdata/bad-rows.xlsx (the shared LibreOffice fixture; outcomes in that
// README), asks the drift endpoint started here to add 3 to a template's stock in Redis and
// expects the reconciliation screen to name the broken equation. It needs node, `npm ci` in admin/web and Debian's chromium;
// COUPON_TEST_BROWSER=1 (scripts/test.sh) makes a missing one a failure rather than a skip.
// Screenshots go to admin/web/e2e/artifacts/.
func TestAdminInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium; skipped with -short")
	}
	fixture := filepath.Join("coupon", "distribution", "testdata", "bad-rows.xlsx")
	if abs, err := filepath.Abs(fixture); err == nil {
		fixture = abs
	}
	chromium := browserNeeds(t, filepath.Join("admin", "web"), fixture)

	t.Setenv("COUPON_DISTRIBUTION_BATCH", "2")
	a, srv := testApp(t)
	// Each batch's progress is pushed when it commits, and a subscriber slower than the task gets
	// its latest state: batches of 2 rows a few milliseconds apart would reach the page as one
	// push. A pause after each batch's T1 (which moves the rows processed; the next T1 waits for
	// it) lets the page see each batch, as it does on a real file.
	a.svc.Distribution.SetStep(func(step string) {
		if step == "reserved" {
			time.Sleep(300 * time.Millisecond)
		}
	})
	w, err := a.startWorker()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.stop)
	token, err := a.signer.Issue(coupon.Actor{UserID: 7, Role: coupon.RoleMerchant, Shop: 1001}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	drift := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(r.URL.Query().Get("template"), 10, 64)
		if err != nil || r.Method != http.MethodPost {
			http.Error(w, "POST ?template=<id>", http.StatusBadRequest)
			return
		}
		if err := a.rdb.HIncrBy(r.Context(), keys.Template(id), "stock", 3).Err(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}))
	t.Cleanup(drift.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("e2e", "run.mjs"))
	cmd.Dir = filepath.Join("admin", "web")
	cmd.Env = append(os.Environ(), "ADMIN_URL="+srv.URL, "ADMIN_TOKEN="+token, "ADMIN_FIXTURE="+fixture,
		"ADMIN_DRIFT_URL="+drift.URL, "CHROMIUM="+chromium, "ADMIN_BUDGET_SCALE="+strconv.Itoa(raceBudgetScale))
	out, err := cmd.CombinedOutput()
	t.Logf("admin/web/e2e/run.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("admin in Chromium: %v", err)
	}
	// The dashboard's issued count (equal to the API's, run.mjs checks) is the shop's coupons in MySQL.
	_, shown, ok := strings.Cut(string(out), "dashboard = API: ")
	var dash struct{ Issued string }
	if !ok || json.Unmarshal([]byte(strings.SplitN(shown, "\n", 2)[0]), &dash) != nil {
		t.Fatalf("run.mjs printed no dashboard line")
	}
	var issued int
	if err := a.sqlDB.QueryRowContext(ctx, `SELECT COUNT(*) FROM user_coupon uc JOIN coupon_template t ON t.id = uc.template_id
		WHERE t.shop_number = 1001`).Scan(&issued); err != nil {
		t.Fatal(err)
	}
	if dash.Issued != strconv.Itoa(issued) {
		t.Errorf("the dashboard shows %s issued, MySQL holds %d coupons of the shop", dash.Issued, issued)
	}
}
