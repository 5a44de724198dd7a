package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"coupond/auth"
	"coupond/coupon"
	"coupond/store"
	"coupond/testutil"
)

// Budget of one authenticated request of the contract (issue 18, point 7).
const (
	budgetRSS = 100 << 20 // bytes of RSS the server grows by while it answers
	budgetCPU = time.Second
)

// The real binary serves a shop of 1,000 templates with a year of daily stat rows each, a user
// holding 20 coupons and a task with 300 failures. For each expensive field (shopStats,
// templateStats, bestCouponCombination over a 500-line order, applicableCoupons, reconciliation,
// failures, templateLog) 100 aliases are refused with COMPLEXITY_LIMIT_EXCEEDED, and the most
// aliases of its fullest selection the limit lets through (found by asking) are answered within
// the budget: the server process's peak RSS (VmHWM, reset through clear_refs before each
// request) less its RSS before the request, and its utime+stime, both read from /proc.
func TestRequestBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	dsn := testutil.FreshDatabase(t, "budget")
	testutil.Redis(t, "main")
	port := freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(bin, "serve", "--mode", "all")
	cmd.Env = binaryEnv(dsn, dir, port)
	logf, _ := os.Create(filepath.Join(dir, "coupond.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "coupond.log"))
			t.Fatalf("coupond not ready after 60 s:\n%s", tail(string(log)))
		}
	}
	signer := auth.NewSigner(devSecret)
	merchant, _ := signer.Issue(coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}, time.Hour)
	user, _ := signer.Issue(coupon.Actor{UserID: 7, Role: coupon.RoleUser}, time.Hour)

	// 20 templates the user claims from, then 980 copies of the first by SQL, and 365 sealed
	// daily rows for each of the 1,000.
	var tpl []int64
	for range 20 {
		id := gqlTemplate(t, url, merchant, 100)
		tpl = append(tpl, id)
		if r := budgetPost(t, url, user, `mutation($id: ID!) { redeemCoupon(input: {templateId: $id}) { redemption { id } userErrors { message } } }`,
			map[string]any{"id": strconv.FormatInt(id, 10)}); !strings.Contains(r.body, `"redemption":{"id"`) {
			t.Fatalf("claim: %s", r.body)
		}
	}
	_, db, err := store.OpenMySQL(dsn, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var cols []string
	rows, err := db.Query(`SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'coupon_template' ORDER BY ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		_ = rows.Scan(&c)
		cols = append(cols, c)
	}
	rows.Close()
	sel := make([]string, len(cols))
	for i, c := range cols {
		switch c {
		case "id":
			sel[i] = "id + 1000000000 + s.seq"
		case "name":
			sel[i] = "CONCAT('copy ', s.seq)"
		default:
			sel[i] = "`" + c + "`"
		}
	}
	for _, q := range []string{
		"INSERT INTO coupon_template (`" + strings.Join(cols, "`, `") + "`) SELECT " + strings.Join(sel, ", ") +
			" FROM coupon_template CROSS JOIN seq_1_to_980 s WHERE id = " + strconv.FormatInt(tpl[0], 10),
		`UPDATE coupon_template SET created_at = NOW() - INTERVAL 400 DAY`,
		`INSERT INTO template_daily_stats (template_id, shop_number, day, issued, used, expired, discount_total,
			issued_distribution, refunded, refunded_discount, sealed, created_at, updated_at)
		 SELECT t.id, t.shop_number, CURDATE() - INTERVAL (s.seq + 1) DAY, 10 + s.seq % 7, 5, 1, 25.00, 3, 1, 5.00, TRUE, NOW(), NOW()
		 FROM coupon_template t CROSS JOIN seq_0_to_364 s`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	var failing strings.Builder
	failing.WriteString("userId\n")
	for range 300 {
		failing.WriteString("x\n") // INVALID_USER_ID
	}
	task := gqlUpload(t, url, merchant, tpl[1], []byte(failing.String()))

	from := time.Now().AddDate(0, 0, -365).Format(time.RFC3339)
	statsFragment := ` fragment S on TemplateStats { templateId templateName totalStock remainingStock issuedCount issuedByOrigin { claim distribution }
		lockedCount usedCount expiredCount refundedCount discountTotal redeemRate daily { date issued used discount refunded expired } }`
	items := make([]map[string]any, 500)
	for i := range items {
		items[i] = map[string]any{"goods": fmt.Sprintf("goods-%d", i), "amount": "2.00"}
	}
	order := map[string]any{"order": map[string]any{"orderId": "1", "shopNumber": "1001", "amount": "1000.00", "items": items}}
	quote := `coupon { id code status source receiveCount validStartTime validEndTime receivedAt template { id name } } applicable discount code reason`
	page := `totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { %s } }`
	tplID := strconv.FormatInt(tpl[1], 10)
	shapes := []struct {
		name, token, vars, field, frag string
		args                           map[string]any
	}{
		{"shopStats", merchant, "", `shopStats(from: "` + from + `") { shopNumber templates issuedCount usedCount discountTotal topByIssued { ...S } topByUsed { ...S } }`, statsFragment, nil},
		{"shopStats totals", merchant, "", `shopStats(from: "` + from + `") { issuedCount usedCount discountTotal }`, "", nil},
		{"templateStats", merchant, "", `templateStats(templateId: "` + tplID + `", from: "` + from + `") { ...S }`, statsFragment, nil},
		{"bestCouponCombination", user, "($order: OrderInput!)", `bestCouponCombination(order: $order) { coupons { ` + quote + ` } discount payable }`, "", order},
		{"applicableCoupons", user, "($order: OrderInput!)", `applicableCoupons(order: $order) { ` + quote + ` }`, "", order},
		{"reconciliation", merchant, "", `reconciliation(templateId: "` + tplID + `") { templateId totalStock redisStock dbStock issued pending failed balanced drift checkedAt }`, "", nil},
		{"failures", merchant, "", `couponTask(id: "` + strconv.FormatInt(task, 10) + `") { id failures(first: 100) { ` + fmt.Sprintf(page, "rowNum userId code reason") + ` } }`, "", nil},
		{"templateLog", merchant, "", `templateLog(templateId: "` + tplID + `", first: 100) { ` + fmt.Sprintf(page, "actor action at before after") + ` }`, "", nil},
	}
	waitTaskEnded(t, db, task)
	pid := cmd.Process.Pid
	for _, s := range shapes {
		doc := func(n int) string {
			var b strings.Builder
			fmt.Fprintf(&b, "query%s { ", s.vars)
			for i := range n {
				fmt.Fprintf(&b, "a%d: %s ", i, s.field)
			}
			return b.String() + "}" + s.frag
		}
		if r := budgetPost(t, url, s.token, doc(100), s.args); !strings.Contains(r.body, "COMPLEXITY_LIMIT_EXCEEDED") {
			t.Errorf("100 × %s: not refused: %.300s", s.name, r.body)
		}
		n := 99
		for ; n > 0; n-- {
			if r := budgetPost(t, url, s.token, doc(n), s.args); !strings.Contains(r.body, "COMPLEXITY_LIMIT_EXCEEDED") {
				break
			}
		}
		if n == 0 {
			t.Errorf("%s: even one alias is refused", s.name)
			continue
		}
		if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
			t.Fatalf("reset the peak RSS: %v", err)
		}
		rss0, cpu0 := procUsage(t, pid)
		r := budgetPost(t, url, s.token, doc(n), s.args)
		hwm, cpu1 := procPeak(t, pid), procCPU(t, pid)
		if strings.Contains(r.body, `"errors"`) {
			t.Errorf("%d × %s: %.500s", n, s.name, r.body)
		}
		grew, cpu := hwm-rss0, cpu1-cpu0
		t.Logf("%-22s %3d aliases: %7d bytes answered in %6.1f ms; server RSS +%5.1f MB, CPU %4d ms",
			s.name, n, len(r.body), float64(r.took.Microseconds())/1000, float64(grew)/(1<<20), cpu.Milliseconds())
		if grew >= budgetRSS || cpu >= budgetCPU {
			t.Errorf("%d × %s: RSS +%d MB, CPU %s: over the budget (%d MB, %s)", n, s.name, grew>>20, cpu, budgetRSS>>20, budgetCPU)
		}
	}
}

// waitTaskEnded waits up to 60 s for the task to leave PENDING and IN_PROGRESS.
func waitTaskEnded(t *testing.T, db *sql.DB, task int64) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var status string
		if err := db.QueryRow(`SELECT status FROM coupon_task WHERE id = ?`, task).Scan(&status); err != nil {
			t.Fatal(err)
		}
		if status != "PENDING" && status != "IN_PROGRESS" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %d still %s after 60 s", task, status)
		}
	}
}

// budgetAnswer is a response body and how long it took.
type budgetAnswer struct {
	body string
	took time.Duration
}

// budgetPost posts a GraphQL request with the token and returns the body.
func budgetPost(t *testing.T, url, token, query string, vars map[string]any) budgetAnswer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	return budgetAnswer{body: out.String(), took: time.Since(start)}
}

// procUsage is the process's resident set (bytes) and CPU time so far.
func procUsage(t *testing.T, pid int) (int64, time.Duration) {
	return procStatus(t, pid, "VmRSS:"), procCPU(t, pid)
}

// procPeak is the process's peak resident set (bytes) since start or the last clear_refs 5.
func procPeak(t *testing.T, pid int) int64 { return procStatus(t, pid, "VmHWM:") }

// procStatus reads a kB figure of /proc/<pid>/status, in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// procCPU is the process's user plus system time (/proc/<pid>/stat, at 100 ticks a second).
func procCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:])) // fields from the 3rd (state) on
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
