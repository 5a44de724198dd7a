// Command distribution measures bulk distribution end to end (issues 9 and 20): an .xlsx of -rows
// users uploaded over GraphQL multipart to `coupond serve --mode api`, run by a separate
// `coupond serve --mode worker`, timed from the upload to SUCCESS, against two references in the
// same run: the time excelize alone needs to iterate the same file with the same row iterator (raw
// values), and the time MariaDB's own bulk load takes to write the same rows (the task's coupons,
// read back) into an empty copy of user_coupon (CREATE TABLE … LIKE, one LOAD DATA LOCAL INFILE).
// It also reports rows/s, the worker's peak RSS (VmHWM) and CPU time, and the claim latency of a flash sale on
// another template running meanwhile (redeemCoupon over HTTP from -claimers closed-loop workers;
// none by default, as LOAD DATA runs alone). It also reports the CPU time MariaDB and Redis used
// during the run, whole processes (the servers it talks to, found by pid: other servers on the box
// are not counted; under bench/isolated.sh they serve the benchmark alone), so the run's CPU can
// be set against what two cores give in its wall time.
//
//	go run ./bench/distribution                  # 200,000 rows: the ratio to LOAD DATA (target ≤ 1.5×)
//	go run ./bench/distribution -rows 1000000    # the worker's peak RSS (target < 150 MB)
//
// See bench/README.md, "Distribution benchmark".
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
	"github.com/xuri/excelize/v2"

	"coupond/auth"
	"coupond/bench/internal/loaddata"
	"coupond/coupon"
)

const secret = "coupond-dev-secret-change-me" // coupond's development default

func main() {
	rows := flag.Int("rows", 200_000, "data rows of the file (200,000: the ratio's target; 1,000,000: the RSS target)")
	mysqlSrv := flag.String("mysql", "root@tcp(127.0.0.1:3306)/", "MySQL server DSN, without database")
	redisAddr := flag.String("redis", "127.0.0.1:6379", "Redis address (DBs 10 and 11 are flushed)")
	dbFlag := flag.String("db", "coupond_bench_dist", "database re-created for the run")
	batch := flag.Int("batch", 5000, "COUPON_DISTRIBUTION_BATCH")
	claimers := flag.Int("claimers", 0, "closed-loop redeemCoupon workers on another template during the run (0: none, as LOAD DATA runs alone)")
	keep := flag.Bool("keep", false, "keep the work directory (binary, file, logs)")
	profile := flag.Bool("pprof", false, "save a CPU profile of the worker (5 s from the upload) as worker-cpu.prof in the work directory (implies -keep)")
	flag.Parse()
	log.SetFlags(0)

	work, err := os.MkdirTemp("", "coupond-bench-dist-")
	check(err)
	if !*keep && !*profile {
		defer os.RemoveAll(work)
	}
	bin := filepath.Join(work, "coupond")
	run("go", "build", "-o", bin, ".")
	file := filepath.Join(work, "users.xlsx")
	check(writeFile(file, *rows))
	st, _ := os.Stat(file)
	log.Printf("file: %d rows, %.1f MiB (%s)", *rows, float64(st.Size())/(1<<20), file)

	iterStart := time.Now()
	n := iterate(file)
	iterTime := time.Since(iterStart)
	log.Printf("excelize alone: %d rows iterated in %.2f s", n, iterTime.Seconds())

	dbName := *dbFlag
	root, err := sql.Open("mysql", *mysqlSrv)
	check(err)
	_, err = root.Exec("DROP DATABASE IF EXISTS " + dbName)
	check(err)
	rdb := redis.NewClient(&redis.Options{Addr: *redisAddr, DB: 10, ReadTimeout: time.Minute})
	check(rdb.FlushDB(context.Background()).Err())
	check(redis.NewClient(&redis.Options{Addr: *redisAddr, DB: 11, ReadTimeout: time.Minute}).FlushDB(context.Background()).Err())
	apiPort := freePort()
	env := append(os.Environ(), "COUPON_MYSQL_DSN="+*mysqlSrv+dbName, "COUPON_REDIS_ADDR="+*redisAddr,
		"COUPON_REDIS_DB=10", "COUPON_QUEUE_REDIS_DB=11", "COUPON_METRICS_ADDR=off", "COUPON_REDEEM_USER_RATE=0",
		"COUPON_REDEEM_TEMPLATE_RATE=10000000", fmt.Sprintf("COUPON_DISTRIBUTION_BATCH=%d", *batch),
		"COUPON_BLOB_URL=file://"+filepath.Join(work, "blobs")+"?create_dir=true", "COUPON_JWT_SECRET="+secret)
	api := start(bin, work, "api", env, apiPort)
	defer stop(api)
	pprofPort := freePort()
	worker := start(bin, work, "worker", append(env, fmt.Sprintf("COUPON_PPROF_ADDR=127.0.0.1:%d", pprofPort)), 0)
	log.Printf("worker pprof: http://127.0.0.1:%d/debug/pprof/", pprofPort)
	defer stop(worker)
	url := fmt.Sprintf("http://127.0.0.1:%d", apiPort)

	signer := auth.NewSigner(secret)
	merchant, err := signer.Issue(coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}, time.Hour)
	check(err)
	distTpl := createTemplate(url, merchant, *rows, 1)
	saleTpl := createTemplate(url, merchant, 10_000_000, 1)

	ctx, stopSale := context.WithCancel(context.Background())
	sale := startSale(ctx, url, signer, saleTpl, *claimers)
	servers := serverPids(root, rdb)
	serversBefore := cpuTimes(servers)
	workerBefore := cpuTime(worker.Process.Pid)
	begin := time.Now()
	taskID := upload(url, merchant, distTpl, file)
	if *profile {
		go saveProfile(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=5", pprofPort), filepath.Join(work, "worker-cpu.prof"))
	}
	db, err := sql.Open("mysql", *mysqlSrv+dbName)
	check(err)
	var status string
	var processed, success, fail int
	for {
		check(db.QueryRow("SELECT status, processed_rows, success_count, fail_count FROM coupon_task WHERE id = ?", taskID).
			Scan(&status, &processed, &success, &fail))
		if status != "PENDING" && status != "IN_PROGRESS" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(begin)
	serversCPU := cpuTimes(servers)
	for name, d := range serversBefore {
		serversCPU[name] -= d
	}
	stopSale()
	lat := sale.wait()
	hwm := vmHWM(worker.Process.Pid)
	cpu := cpuTime(worker.Process.Pid)
	log.Printf("end to end (upload to %s): %.2f s; %d rows processed, %d issued, %d failed", status, took.Seconds(), processed, success, fail)
	loaded, loadTime, loadCPU := loadCopy(db, distTpl, work, servers)
	log.Printf("LOAD DATA of the task's %d coupons into an empty copy of user_coupon: %.2f s", loaded, loadTime.Seconds())
	fmt.Printf("\n| measure | value | target |\n|---|---|---|\n")
	fmt.Printf("| rows | %d (%.1f MiB .xlsx, batch %d) | |\n", *rows, float64(st.Size())/(1<<20), *batch)
	fmt.Printf("| excelize alone, iterating the file | %.2f s | |\n", iterTime.Seconds())
	fmt.Printf("| upload to %s | %.2f s | |\n", status, took.Seconds())
	fmt.Printf("| ratio to excelize alone | %.2f× | |\n", took.Seconds()/iterTime.Seconds())
	fmt.Printf("| LOAD DATA of the same %d rows into an empty copy of user_coupon | %.2f s (MariaDB CPU %.2f s) | |\n", loaded, loadTime.Seconds(), loadCPU.Seconds())
	ratio := took.Seconds() / loadTime.Seconds()
	fmt.Printf("| ratio to LOAD DATA | %.2f× | ≤ 1.5× at 200,000 rows (%s) |\n", ratio, met(ratio <= 1.5))
	fmt.Printf("| rows/s end to end | %.0f | |\n", float64(processed)/took.Seconds())
	fmt.Printf("| worker peak RSS (VmHWM) | %.0f MB | < 150 MB (%s) |\n", float64(hwm)/1e6, met(hwm < 150e6))
	runCPU := cpu - workerBefore
	fmt.Printf("| worker CPU (user + system, from its start to SUCCESS; from the upload) | %.2f s; %.2f s (%.1f µs per row) | |\n",
		cpu.Seconds(), runCPU.Seconds(), float64(runCPU.Microseconds())/float64(max(processed, 1)))
	total := runCPU
	var parts []string
	for _, name := range []string{"mariadbd", "redis-server"} {
		total += serversCPU[name]
		parts = append(parts, fmt.Sprintf("%s %.2f s", name, serversCPU[name].Seconds()))
	}
	fmt.Printf("| CPU during the run (from the upload), whole processes | %s, with the worker's: %.2f s, %.0f%% of %d cores over the run's wall time | |\n",
		strings.Join(parts, ", "), total.Seconds(), 100*total.Seconds()/(took.Seconds()*float64(runtime.NumCPU())), runtime.NumCPU())
	if len(lat) > 0 {
		fmt.Printf("| concurrent claims on another template | %d, p50 %.1f ms, p99 %.1f ms, max %.1f ms | |\n",
			len(lat), ms(pct(lat, 0.50)), ms(pct(lat, 0.99)), ms(lat[len(lat)-1]))
	}
	if status != "SUCCESS" || processed != *rows || success != *rows {
		fatalf("the task ended %s with %d/%d rows issued", status, success, *rows)
	}
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(sorted []time.Duration, p float64) time.Duration {
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}

// loadCopy writes the coupons of template tplID, read back from user_coupon (every column, in id
// order), to a file in work, then times one LOAD DATA LOCAL INFILE of it into an empty copy of
// user_coupon (CREATE TABLE … LIKE: the same indexes), and returns the rows loaded, the time, and
// the CPU time the MariaDB of servers spent meanwhile.
func loadCopy(db *sql.DB, tplID, work string, servers map[string][]int) (int64, time.Duration, time.Duration) {
	path := filepath.Join(work, "coupons.tsv")
	f, err := os.Create(path)
	check(err)
	rs, err := db.Query("SELECT * FROM user_coupon WHERE template_id = ? ORDER BY id", tplID)
	check(err)
	cols, err := rs.Columns()
	check(err)
	w := loaddata.NewWriter(f)
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	fields := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rs.Next() {
		check(rs.Scan(ptrs...))
		for i, v := range vals {
			fields[i] = loaddata.Null
			if v.Valid {
				fields[i] = v.String
			}
		}
		check(w.Row(fields...))
	}
	check(rs.Err())
	check(w.Flush())
	check(f.Close())
	_, err = db.Exec("DROP TABLE IF EXISTS user_coupon_load")
	check(err)
	_, err = db.Exec("CREATE TABLE user_coupon_load LIKE user_coupon")
	check(err)
	in, err := os.Open(path)
	check(err)
	defer in.Close()
	cpuBefore := cpuTimes(servers)["mariadbd"]
	began := time.Now()
	n, err := loaddata.Exec(db, "user_coupon_load", cols, in)
	took := time.Since(began)
	cpu := cpuTimes(servers)["mariadbd"] - cpuBefore
	check(err)
	if n != int64(w.Rows()) {
		fatalf("LOAD DATA loaded %d rows of %d", n, w.Rows())
	}
	return n, took, cpu
}

// writeFile writes an .xlsx with a userId header and ids 10,000,001… as numbers (StreamWriter).
func writeFile(path string, rows int) error {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		return err
	}
	if err := sw.SetRow("A1", []any{"userId", "note"}); err != nil {
		return err
	}
	for i := 0; i < rows; i++ {
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := sw.SetRow(cell, []any{10_000_001 + i, "x"}); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.SaveAs(path)
}

// iterate reads every row of the first sheet as coupond's reader does (excelize row iterator, raw
// values) and returns how many rows it saw.
func iterate(path string) int {
	f, err := excelize.OpenFile(path, excelize.Options{RawCellValue: true})
	check(err)
	defer f.Close()
	rows, err := f.Rows(f.GetSheetList()[0])
	check(err)
	defer rows.Close()
	n := 0
	for rows.Next() {
		cells, err := rows.Columns()
		check(err)
		if len(cells) > 0 {
			n++
		}
	}
	check(rows.Error())
	return n - 1 // the header
}

// start runs `coupond serve --mode mode` and waits for its /readyz (port 0: a worker, no HTTP).
func start(bin, work, mode string, env []string, port int) *exec.Cmd {
	cmd := exec.Command(bin, "serve", "--mode", mode)
	cmd.Env = append(env, fmt.Sprintf("COUPON_HTTP_ADDR=127.0.0.1:%d", port))
	logf, err := os.Create(filepath.Join(work, mode+".log"))
	check(err)
	cmd.Stdout, cmd.Stderr = logf, logf
	check(cmd.Start())
	started = append(started, cmd)
	if port == 0 { // a worker serves no HTTP: give it a moment to connect
		time.Sleep(2 * time.Second)
		return cmd
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", port)); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return cmd
			}
		}
	}
	fatalf("coupond %s not ready (see %s)", mode, logf.Name())
	return nil
}

func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _, _ = cmd.Process.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
	}
}

// vmHWM is the process's peak resident set size in bytes (/proc/<pid>/status).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	check(err)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "VmHWM:"), "kB")), &kb)
			return kb * 1024
		}
	}
	return 0
}

// serverPids returns the pids of the MariaDB (its @@pid_file) and Redis (INFO's process_id)
// servers this run talks to, by the names the report gives them: on a box where other servers
// run beside them, theirs are not counted. A server whose pid cannot be told is left out.
func serverPids(db *sql.DB, rdb *redis.Client) map[string][]int {
	out := map[string][]int{}
	var pidFile string
	if db.QueryRow("SELECT @@pid_file").Scan(&pidFile) == nil {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				out["mariadbd"] = []int{pid}
			}
		}
	}
	if info, err := rdb.Info(context.Background(), "server").Result(); err == nil {
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
				if pid, err := strconv.Atoi(v); err == nil {
					out["redis-server"] = []int{pid}
				}
			}
		}
	}
	return out
}

// cpuTimes is the CPU time used so far by each name's processes (cpuTime), summed.
func cpuTimes(pids map[string][]int) map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, ps := range pids {
		for _, pid := range ps {
			out[name] += cpuTime(pid)
		}
	}
	return out
}

// cpuTime is the CPU time the process has used so far, user and system (/proc/<pid>/stat, in
// clock ticks of 1/100 s, Linux's USER_HZ): on a shared machine it moves less than wall time.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	check(err)
	_, after, _ := strings.Cut(string(b), ") ") // the command name may hold spaces
	f := strings.Fields(after)                  // f[0] is field 3 (state): utime and stime are fields 14 and 15
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func gql(url, token, query string, vars map[string]any, out any) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	check(err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, out); err != nil {
		fatalf("%d: %.300s", resp.StatusCode, raw)
	}
}

func createTemplate(url, token string, stock, limit int) string {
	var out struct {
		Data struct {
			CreateCouponTemplate struct {
				Template   struct{ ID string }
				UserErrors []struct{ Message string }
			}
		}
		Errors []struct{ Message string }
	}
	gql(url, token, `mutation($input: CreateCouponTemplateInput!) { createCouponTemplate(input: $input) { template { id } userErrors { message } } }`,
		map[string]any{"input": map[string]any{"name": "bench", "source": "SHOP", "target": "SHOP_WIDE", "type": "FIXED_OFF",
			"validStartTime": time.Now().Add(-time.Minute).Format(time.RFC3339), "validEndTime": time.Now().Add(24 * time.Hour).Format(time.RFC3339),
			"stock": stock, "limitPerPerson": limit, "discountAmount": "5.00"}}, &out)
	if out.Data.CreateCouponTemplate.Template.ID == "" {
		fatalf("template not created: %+v", out)
	}
	return out.Data.CreateCouponTemplate.Template.ID
}

func upload(url, token, tplID, path string) string {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	ops, _ := json.Marshal(map[string]any{"query": `mutation($input: CreateCouponTaskInput!) { createCouponTask(input: $input) { task { id } userErrors { code message } } }`,
		"variables": map[string]any{"input": map[string]any{"templateId": tplID, "name": "bench", "sendType": "IMMEDIATE", "file": nil}}})
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0": ["variables.input.file"]}`)
	fw, _ := mw.CreateFormFile("0", "users.xlsx")
	content, err := os.ReadFile(path)
	check(err)
	_, _ = fw.Write(content)
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, url+"/query", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Apollo-Require-Preflight", "true")
	resp, err := http.DefaultClient.Do(req)
	check(err)
	defer resp.Body.Close()
	var out struct {
		Data struct {
			CreateCouponTask struct{ Task struct{ ID string } }
		}
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil || out.Data.CreateCouponTask.Task.ID == "" {
		fatalf("upload: %d %.300s", resp.StatusCode, raw)
	}
	return out.Data.CreateCouponTask.Task.ID
}

// sale is a closed-loop flash sale: each worker sends its next claim, by a user who has not
// claimed yet, when the previous answer arrives.
type sale struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	lat []time.Duration
}

func startSale(ctx context.Context, url string, signer *auth.Signer, tplID string, workers int) *sale {
	s := &sale{}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	var next atomic.Int64
	for w := 0; w < workers; w++ {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			body := fmt.Sprintf(`{"query":"mutation { redeemCoupon(input: {templateId: \"%s\"}) { redemption { id } userErrors { code } } }"}`, tplID)
			for ctx.Err() == nil {
				// every claim by a new user, as in a flash sale (limit 1 each)
				tok, err := signer.Issue(coupon.Actor{UserID: 50_000_000 + next.Add(1), Role: coupon.RoleUser}, time.Hour)
				check(err)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/query", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+tok)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				s.mu.Lock()
				s.lat = append(s.lat, time.Since(t0))
				s.mu.Unlock()
			}
		}()
	}
	return s
}

func (s *sale) wait() []time.Duration {
	s.wg.Wait()
	sort.Slice(s.lat, func(i, j int) bool { return s.lat[i] < s.lat[j] })
	return s.lat
}

func run(name string, args ...string) {
	cmd := exec.Command(name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// saveProfile fetches a pprof profile into path.
func saveProfile(url, path string) {
	resp, err := http.Get(url)
	if err != nil {
		log.Printf("profile: %v", err)
		return
	}
	defer resp.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		log.Printf("profile: %v", err)
		return
	}
	defer f.Close()
	_, _ = io.Copy(f, resp.Body)
	log.Printf("worker CPU profile: %s", path)
}

// started are the coupond processes to stop before exiting, also on a fatal error.
var started []*exec.Cmd

// fatalf stops what was started, then exits with the message.
func fatalf(format string, args ...any) {
	for _, c := range started {
		stop(c)
	}
	log.Fatalf(format, args...)
}

func check(err error) {
	if err != nil {
		fatalf("%v", err)
	}
}
