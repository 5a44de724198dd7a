package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"coupond/auth"
	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontask"
	"coupond/ent/coupontaskfailure"
	"coupond/ent/usercoupon"
	"coupond/store"
	"coupond/testutil"
)

// The real binary (serve --mode all) is killed with SIGKILL twice while it distributes a 30,000-row
// file, and started again each time: the task resumes within 10 s of the restart (lease expiry
// plus the reaper's period), and ends SUCCESS with every data row issued or failed exactly once,
// the counts exact and no stock leaked (Redis stock = DB stock, DB stock + coupons = total, each
// user's claim counter = the coupons MySQL holds, no journal left).
func TestDistributionSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	dsn := testutil.FreshDatabase(t, "dist_kill")
	testutil.Redis(t, "main")
	port := freePort(t)
	env := append(binaryEnv(dsn, dir, port), "COUPON_DISTRIBUTION_BATCH=500")
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "serve", "--mode", "all")
		cmd.Env = env
		logf, _ := os.OpenFile(filepath.Join(dir, "coupond.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if resp, err := http.Get(url + "/readyz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					return cmd
				}
			}
			if time.Now().After(deadline) {
				log, _ := os.ReadFile(filepath.Join(dir, "coupond.log"))
				t.Fatalf("coupond not ready after 60 s:\n%s", tail(string(log)))
			}
		}
	}
	cmd := start()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	db, _, err := store.OpenMySQL(dsn, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rdb := store.OpenRedis(testutil.RedisAddr(), "", 0)
	defer rdb.Close()
	ctx := context.Background()

	tok, err := auth.NewSigner(devSecret).Issue(coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	const rows, stock = 30000, 28000
	tplID := gqlTemplate(t, url, tok, stock)
	var file strings.Builder
	file.WriteString("userId\n")
	for i := 1; i <= rows; i++ {
		switch {
		case i%1000 == 0:
			file.WriteString("x\n") // INVALID_USER_ID
		case i%997 == 0:
			file.WriteString("5\n") // a repeat of user 5: DUPLICATE_IN_FILE
		default:
			fmt.Fprintf(&file, "%d\n", i)
		}
	}
	taskID := gqlUpload(t, url, tok, tplID, []byte(file.String()))

	task := func() *ent.CouponTask {
		t.Helper()
		tk, err := db.CouponTask.Get(ctx, taskID)
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	waitFor := func(what string, limit time.Duration, ok func(*ent.CouponTask) bool) *ent.CouponTask {
		t.Helper()
		for deadline := time.Now().Add(limit); ; time.Sleep(10 * time.Millisecond) {
			if tk := task(); ok(tk) {
				return tk
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %s (task %+v)", what, limit, task())
			}
		}
	}
	for _, at := range []int{4000, 16000} {
		waitFor(fmt.Sprintf("%d rows done", at), 60*time.Second, func(tk *ent.CouponTask) bool { return tk.ProcessedRows >= at })
		_ = cmd.Process.Kill() // SIGKILL
		_, _ = cmd.Process.Wait()
		killed := task()
		if killed.Status != coupontask.StatusIN_PROGRESS {
			t.Fatalf("killed at %d rows but the task is %s", killed.ProcessedRows, killed.Status)
		}
		cmd = start()
		restarted := time.Now()
		waitFor("progress after the restart", 10*time.Second, func(tk *ent.CouponTask) bool {
			return tk.ProcessedRows > killed.ProcessedRows || tk.Status == coupontask.StatusSUCCESS
		})
		t.Logf("killed at row %d (%d rows committed); resumed %.1f s after the restart", killed.ResumeRow, killed.ProcessedRows, time.Since(restarted).Seconds())
	}
	done := waitFor("SUCCESS", 120*time.Second, func(tk *ent.CouponTask) bool { return tk.Status == coupontask.StatusSUCCESS })

	// Every data row exactly once: its coupon or its failure, never both, never neither.
	coupons, err := db.UserCoupon.Query().Where(usercoupon.TemplateID(tplID)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fails, err := db.CouponTaskFailure.Query().Where(coupontaskfailure.TaskID(taskID)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]string{}
	codes := map[string]int{}
	for _, c := range coupons {
		var row int
		fmt.Sscanf(strings.TrimPrefix(c.RedemptionID, fmt.Sprintf("d%d-", taskID)), "%d", &row)
		seen[row] = "issued"
	}
	for _, f := range fails {
		if seen[f.RowNum] != "" {
			t.Fatalf("row %d both %s and failed %s", f.RowNum, seen[f.RowNum], f.Code)
		}
		seen[f.RowNum] = f.Code
		codes[f.Code]++
	}
	for line := 2; line <= rows+1; line++ {
		if seen[line] == "" {
			t.Fatalf("row %d neither issued nor failed", line)
		}
	}
	invalid, dups := rows/1000, 0
	for i := 1; i <= rows; i++ {
		if i%997 == 0 && i%1000 != 0 {
			dups++
		}
	}
	valid := rows - invalid - dups
	if len(coupons) != stock || codes["INVALID_USER_ID"] != invalid || codes["DUPLICATE_IN_FILE"] != dups || codes["OUT_OF_STOCK"] != valid-stock {
		t.Fatalf("coupons %d (want %d), failures %v (want %d invalid, %d duplicates, %d out of stock)", len(coupons), stock, codes, invalid, dups, valid-stock)
	}
	if done.ProcessedRows != rows || done.SuccessCount != len(coupons) || done.FailCount != len(fails) || done.SendNum == nil || *done.SendNum != rows {
		t.Fatalf("task counts %+v", done)
	}
	tpl, err := db.CouponTemplate.Get(ctx, tplID)
	if err != nil {
		t.Fatal(err)
	}
	redisStock, _ := rdb.HGet(ctx, keys.Template(tplID), "stock").Int()
	if tpl.Stock != 0 || redisStock != 0 || tpl.Stock+len(coupons) != tpl.TotalStock {
		t.Fatalf("stock: DB %d, Redis %d, coupons %d, total %d", tpl.Stock, redisStock, len(coupons), tpl.TotalStock)
	}
	if n := rdb.Exists(ctx, keys.StockShard(tplID, 0, 1).DistributionJournal(taskID)).Val(); n != 0 {
		t.Fatal("the batch journal is left behind")
	}
	pipe := rdb.Pipeline()
	counters := make(map[int64]interface{ Int() (int, error) }, len(coupons))
	for _, c := range coupons {
		counters[c.UserID] = pipe.HGet(ctx, keys.ClaimCounter(tplID, c.UserID), "n")
	}
	_, _ = pipe.Exec(ctx)
	for u, c := range counters {
		if n, _ := c.Int(); n != 1 {
			t.Fatalf("user %d: claim counter %d, MySQL holds 1 coupon", u, n)
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}

// buildBinary builds this coupond into dir and returns its path.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "coupond")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// binaryEnv is the environment of a built coupond serving on 127.0.0.1:port against the database
// dsn and the test Redis under this package's namespace, keeping its uploads under dir.
func binaryEnv(dsn, dir string, port int) []string {
	return append(os.Environ(),
		"COUPON_MYSQL_DSN="+dsn, "COUPON_REDIS_ADDR="+testutil.RedisAddr(), "COUPON_QUEUE_REDIS_ADDR="+testutil.RedisAddr(),
		"COUPON_REDIS_DB=0", "COUPON_QUEUE_REDIS_DB=0", "COUPON_REDIS_NAMESPACE="+keys.Namespace(),
		fmt.Sprintf("COUPON_HTTP_ADDR=127.0.0.1:%d", port), "COUPON_METRICS_ADDR=off",
		"COUPON_BLOB_URL=file://"+filepath.Join(dir, "blobs")+"?create_dir=true")
}

// gqlTemplate creates an open template of the token's shop over GraphQL and returns its id.
func gqlTemplate(t *testing.T, url, tok string, stock int) int64 {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": `mutation($input: CreateCouponTemplateInput!) {
		createCouponTemplate(input: $input) { template { id } userErrors { message } } }`,
		"variables": map[string]any{"input": map[string]any{
			"name": "kill", "source": "SHOP", "target": "SHOP_WIDE", "type": "FIXED_OFF",
			"validStartTime": time.Now().Add(-time.Minute).Format(time.RFC3339), "validEndTime": time.Now().Add(time.Hour).Format(time.RFC3339),
			"stock": stock, "limitPerPerson": 1, "discountAmount": "5.00"}}})
	req, _ := http.NewRequest(http.MethodPost, url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	var out struct {
		Data struct {
			CreateCouponTemplate struct{ Template struct{ ID string } }
		}
	}
	doJSON(t, req, &out)
	var id int64
	fmt.Sscan(out.Data.CreateCouponTemplate.Template.ID, &id)
	if id == 0 {
		t.Fatalf("template not created: %+v", out)
	}
	return id
}

// gqlUpload creates an IMMEDIATE task of the template with the CSV file and returns its id.
func gqlUpload(t *testing.T, url, tok string, tplID int64, csv []byte) int64 {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	ops, _ := json.Marshal(map[string]any{"query": createTaskMutation, "variables": map[string]any{"input": map[string]any{
		"templateId": fmt.Sprint(tplID), "name": "kill", "sendType": "IMMEDIATE", "file": nil}}})
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0": ["variables.input.file"]}`)
	fw, _ := mw.CreateFormFile("0", "users.csv")
	_, _ = fw.Write(csv)
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, url+"/query", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Apollo-Require-Preflight", "true")
	var out struct {
		Data struct {
			CreateCouponTask struct{ Task struct{ ID string } }
		}
	}
	doJSON(t, req, &out)
	var id int64
	fmt.Sscan(out.Data.CreateCouponTask.Task.ID, &id)
	if id == 0 {
		t.Fatalf("task not created: %+v", out)
	}
	return id
}

func doJSON(t *testing.T, req *http.Request, out any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%d: %.300s", resp.StatusCode, raw)
	}
}
