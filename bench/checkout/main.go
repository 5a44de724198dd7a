// Command checkout measures the checkout: lockCoupon + confirmCouponPayment pairs per second with
// N concurrent users (each on its own coupons) over GraphQL/HTTP, against the raw rate of the same
// two CAS transactions issued directly to the same MariaDB in the same run, plus the p99 of each
// call and of applicableCoupons on wallets of -wallet coupons.
//
//	go run ./bench/checkout                                  # 64 users, 10 s per phase
//	go run ./bench/checkout -users 64 -duration 10s -mysql 'root@tcp(127.0.0.1:3306)/' -redis 127.0.0.1:6379
//
// The server side is coupond's own handler (graph.NewHandler over services.New, the wiring of
// `coupond serve`) on a loopback httptest server in this process, called over keep-alive HTTP
// with a bearer token per user; its database is created fresh (coupond_bench_checkout), and its
// Redis keys and queues carry the namespace "bench_checkout:". The raw side runs, per pair, the
// transactions lockCoupon and confirmCouponPayment commit — (UPDATE user_coupon … WHERE
// status='UNUSED'; INSERT coupon_settlement) and (UPDATE coupon_settlement … WHERE
// status='LOCKED'; UPDATE user_coupon … WHERE status='LOCKED') — on a pool of the same size.
// Phases run raw, server, raw; the ratio is taken against the mean of the two raw runs. Every
// pair's answers are checked (a refused or failed call counts as an error, not a pair).
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"coupond/auth"
	"coupond/bench/internal/benchenv"
	"coupond/coupon"
	"coupond/coupon/checkout"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/usercoupon"
	"coupond/graph"
	"coupond/idgen"
	"coupond/jobs"
	"coupond/services"
	"coupond/store"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"
)

// dbName is the benchmark's database (created afresh), -db.
var dbName = "coupond_bench_checkout"

func main() {
	mysqlServer := flag.String("mysql", benchenv.Env("COUPON_TEST_MYSQL", "root@tcp(127.0.0.1:3306)/"), "MySQL server DSN without a database")
	redisAddr := flag.String("redis", benchenv.Env("COUPON_TEST_REDIS", "127.0.0.1:6379"), "Redis address (data DB 0, queue DB 1)")
	users := flag.Int("users", 64, "concurrent users")
	duration := flag.Duration("duration", 10*time.Second, "length of each phase")
	perUser := flag.Int("coupons", 0, "coupons per user and phase (0: enough for 2000 pairs/s)")
	wallet := flag.Int("wallet", 200, "coupons in each wallet of the applicableCoupons phase")
	out := flag.String("out", "", "also write the JSON report here")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of one phase here")
	profiled := flag.String("profile-phase", "applicable", "the phase -cpuprofile profiles: server or applicable")
	probes := flag.Int("probes", 1, "users calling applicableCoupons on their wallet, one call after the other, during the lock+confirm phase")
	flag.StringVar(&dbName, "db", dbName, "the database the benchmark creates afresh")
	namespace := flag.String("namespace", "bench_checkout:", "the Redis key namespace (also of the queues)")
	flag.Parse()
	if *perUser == 0 {
		*perUser = int(2000*duration.Seconds()) / *users + 50
	}
	keys.SetNamespace(*namespace)
	b, err := setup(*mysqlServer, *redisAddr, *users)
	if err != nil {
		log.Fatal(err)
	}
	defer b.close()
	ctx := context.Background()
	tpl, err := b.svc.Templates.Create(ctx, merchant, templateInput())
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("issuing %d coupons per user and phase to %d users", *perUser, *users)
	raw1Coupons := b.issue(tpl, 100_000, *users, *perUser)
	serverCoupons := b.issue(tpl, 200_000, *users, *perUser)
	raw2Coupons := b.issue(tpl, 300_000, *users, *perUser)
	b.issue(tpl, 400_000, max(*users, *probes), *wallet)

	rep := report{Users: *users, Duration: duration.String(), Wallet: *wallet}
	log.Print("raw CAS transactions (1)")
	rep.Raw1 = b.raw(100_000, raw1Coupons, *duration)
	log.Print("lockCoupon + confirmCouponPayment over GraphQL")
	stop := profile(*cpuProfile, *profiled == "server")
	probed := b.probe(400_000, *probes)
	rep.Server = b.server(serverCoupons, *duration)
	rep.ApplicableUnderLoad = probed()
	stop()
	log.Print("raw CAS transactions (2)")
	rep.Raw2 = b.raw(300_000, raw2Coupons, *duration)
	log.Print("applicableCoupons")
	stop = profile(*cpuProfile, *profiled == "applicable")
	rep.Applicable = b.applicable(400_000, *users, *duration)
	stop()
	rawMean := (rep.Raw1.PairsPerSec + rep.Raw2.PairsPerSec) / 2
	rep.Ratio = rep.Server.PairsPerSec / rawMean
	rep.Met = rep.Ratio >= 0.5
	js, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(js))
	fmt.Printf("\nlock+confirm pairs/s over GraphQL: %.0f (p99 lock %.1f ms, confirm %.1f ms)\n", rep.Server.PairsPerSec, rep.Server.LockP99, rep.Server.ConfirmP99)
	fmt.Printf("raw CAS pairs/s: %.0f and %.0f (mean %.0f; p99 lock tx %.1f ms, confirm tx %.1f ms)\n", rep.Raw1.PairsPerSec, rep.Raw2.PairsPerSec, rawMean, rep.Raw1.LockP99, rep.Raw1.ConfirmP99)
	fmt.Printf("ratio %.2f (target ≥ 0.5: %v)\n", rep.Ratio, map[bool]string{true: "met", false: "NOT met"}[rep.Met])
	fmt.Printf("applicableCoupons on %d-coupon wallets during the lock+confirm load, %d users one call after the other: %d calls, p50 %.1f ms, p99 %.1f ms (target p99 < 50 ms: %v)\n",
		*wallet, *probes, rep.ApplicableUnderLoad.Calls, rep.ApplicableUnderLoad.P50, rep.ApplicableUnderLoad.P99, map[bool]string{true: "met", false: "NOT met"}[rep.ApplicableUnderLoad.P99 < 50])
	fmt.Printf("applicableCoupons on %d-coupon wallets, %d users: %.0f/s, p50 %.1f ms, p99 %.1f ms\n", *wallet, *users, rep.Applicable.PerSec, rep.Applicable.P50, rep.Applicable.P99)
	if *out != "" {
		if err := os.WriteFile(*out, js, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// profile starts a CPU profile into path when on is set and returns its stop.
func profile(path string, on bool) func() {
	if path == "" || !on {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

var merchant = coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}

func templateInput() template.CreateInput {
	five := decimal.NewFromInt(5)
	now := time.Now()
	return template.CreateInput{
		Name: "bench", Source: coupontemplate.SourceSHOP, Target: coupontemplate.TargetSHOP_WIDE,
		Type: coupontemplate.TypeFIXED_OFF, ValidStartTime: now.Add(-time.Minute), ValidEndTime: now.Add(24 * time.Hour),
		Stock: 10_000_000, LimitPerPerson: 10_000_000, DiscountAmount: &five,
	}
}

type phase struct {
	Pairs       int64   `json:"pairs"`
	Errors      int64   `json:"errors"`
	PairsPerSec float64 `json:"pairsPerSec"`
	LockP50     float64 `json:"lockP50Ms"`
	LockP99     float64 `json:"lockP99Ms"`
	ConfirmP50  float64 `json:"confirmP50Ms"`
	ConfirmP99  float64 `json:"confirmP99Ms"`
	FirstError  string  `json:"firstError,omitempty"`
}

type applicablePhase struct {
	Calls  int64   `json:"calls"`
	Errors int64   `json:"errors"`
	PerSec float64 `json:"perSec"`
	P50    float64 `json:"p50Ms"`
	P99    float64 `json:"p99Ms"`
}

type report struct {
	Users      int             `json:"users"`
	Duration   string          `json:"duration"`
	Wallet     int             `json:"wallet"`
	Raw1       phase           `json:"raw1"`
	Server     phase           `json:"server"`
	Raw2       phase           `json:"raw2"`
	Ratio      float64         `json:"ratioServerToRawMean"`
	Met        bool            `json:"targetMet"`
	Applicable applicablePhase `json:"applicableCoupons"`
	// ApplicableUnderLoad: -probes users' applicableCoupons calls during the server phase.
	ApplicableUnderLoad applicablePhase `json:"applicableCouponsUnderLoad"`
}

type bench struct {
	db     *ent.Client
	rcDB   *sql.DB
	sqlDB  *sql.DB
	rdb    *redis.Client
	queue  *asynq.Client
	svc    *services.Services
	srv    *httptest.Server
	client *http.Client
	signer *auth.Signer
}

func setup(server, redisAddr string, users int) (*bench, error) {
	dsn, err := benchenv.FreshDatabase(server, dbName)
	if err != nil {
		return nil, err
	}
	db, sqlDB, err := store.OpenMySQL(dsn, users)
	if err != nil {
		return nil, err
	}
	_, rcDB, err := store.OpenMySQLReadCommitted(dsn, users) // the checkout's pool, as coupond serve opens it
	if err != nil {
		return nil, err
	}
	b := &bench{db: db, sqlDB: sqlDB, rcDB: rcDB}
	b.rdb = redis.NewClient(&redis.Options{Addr: redisAddr, PoolSize: 4 * users})
	b.queue = asynq.NewClient(asynq.RedisClientOpt{Addr: redisAddr, DB: 1, PoolSize: 2 * users})
	b.svc = services.New(db, b.rdb, jobs.NewQueue(b.queue), services.Config{Checkout: checkout.Config{DB: rcDB}})
	b.signer = auth.NewSigner("bench-checkout-secret")
	h := graph.NewHandler(&graph.Resolver{Templates: b.svc.Templates, Redeemer: b.svc.Redeemer, Wallet: b.svc.Wallet, Checkout: b.svc.Checkout},
		graph.HandlerConfig{Signer: b.signer, ComplexityLimit: 500, DepthLimit: 15})
	b.srv = httptest.NewServer(b.signer.Middleware(h))
	b.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * users, MaxConnsPerHost: 2 * users}}
	return b, nil
}

func (b *bench) close() {
	b.srv.Close()
	b.queue.Close()
	b.rdb.Close()
	b.db.Close()
	b.rcDB.Close()
}

// issue gives each of users users (ids base+1 …) n coupons of tpl, in bulk inserts, and returns
// them by user.
func (b *bench) issue(tpl *coupon.Template, base int64, users, n int) [][]int64 {
	ctx := context.Background()
	out := make([][]int64, users)
	now := time.Now().UTC().Truncate(time.Millisecond)
	for u := range users {
		userID := base + int64(u) + 1
		for start := 0; start < n; start += 1000 {
			tx, err := b.db.Tx(ctx)
			if err != nil {
				log.Fatal(err)
			}
			var builders []*ent.UserCouponCreate
			for i := start; i < min(n, start+1000); i++ {
				builders = append(builders, issue.Create(tx, issue.Coupon{
					UserID: userID, TemplateID: tpl.ID, RedemptionID: fmt.Sprintf("bench-%d-%d", userID, i),
					ReceiveCount: i + 1, Source: usercoupon.SourceDISTRIBUTION, At: now.Add(-time.Second), End: tpl.ValidEnd,
				}))
			}
			rows, err := tx.UserCoupon.CreateBulk(builders...).Save(ctx)
			if err != nil {
				log.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				log.Fatal(err)
			}
			for _, r := range rows {
				out[u] = append(out[u], r.ID)
			}
		}
	}
	return out
}

// run runs one goroutine per user until d has passed; work returns the latencies of one unit
// (or an error) and whether the user has more to do.
func run(users int, d time.Duration, work func(u, i int) ([]time.Duration, error, bool)) (units, errs int64, lat [][]time.Duration, elapsed time.Duration, first string) {
	var wg sync.WaitGroup
	var firstErr atomic.Value
	lats := make([][][]time.Duration, users)
	start := time.Now()
	deadline := start.Add(d)
	for u := range users {
		wg.Go(func() {
			for i := 0; time.Now().Before(deadline); i++ {
				l, err, more := work(u, i)
				if err != nil {
					atomic.AddInt64(&errs, 1)
					firstErr.CompareAndSwap(nil, err.Error())
				} else if l != nil {
					atomic.AddInt64(&units, 1)
					lats[u] = append(lats[u], l)
				}
				if !more {
					log.Printf("user %d ran out of coupons", u)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed = time.Since(start)
	for _, ul := range lats {
		for _, l := range ul {
			for k := range l {
				for len(lat) <= k {
					lat = append(lat, nil)
				}
				lat[k] = append(lat[k], l[k])
			}
		}
	}
	if f, ok := firstErr.Load().(string); ok {
		first = f
	}
	return units, errs, lat, elapsed, first
}

func pct(ls []time.Duration, p float64) float64 {
	if len(ls) == 0 {
		return 0
	}
	slices.Sort(ls)
	return float64(ls[min(len(ls)-1, int(float64(len(ls))*p))].Microseconds()) / 1000
}

func toPhase(units, errs int64, lat [][]time.Duration, elapsed time.Duration, first string) phase {
	p := phase{Pairs: units, Errors: errs, PairsPerSec: float64(units) / elapsed.Seconds(), FirstError: first}
	if len(lat) == 2 {
		p.LockP50, p.LockP99 = pct(lat[0], 0.50), pct(lat[0], 0.99)
		p.ConfirmP50, p.ConfirmP99 = pct(lat[1], 0.50), pct(lat[1], 0.99)
	}
	return p
}

var orderSeq atomic.Int64

// raw runs the two CAS transactions of a pair directly.
func (b *bench) raw(base int64, coupons [][]int64, d time.Duration) phase {
	ctx := context.Background()
	users := len(coupons)
	return toPhase(run(users, d, func(u, i int) ([]time.Duration, error, bool) {
		if i >= len(coupons[u]) {
			return nil, nil, false
		}
		userID, couponID := base+int64(u)+1, coupons[u][i]
		orderID := orderSeq.Add(1)
		now := time.Now().UTC().Truncate(time.Millisecond)
		t0 := time.Now()
		err := tx(ctx, b.sqlDB, func(tx *sql.Tx) error {
			if err := one(tx.ExecContext(ctx, "UPDATE user_coupon SET status='LOCKED', order_id=?, discount_amount=?, updated_at=? WHERE user_id=? AND id=? AND status='UNUSED' AND valid_end_time>?",
				orderID, "5.00", now, userID, couponID, now)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO coupon_settlement (id, created_at, updated_at, user_id, order_id, coupon_id, template_id, status, order_amount, discount_amount, payable_amount, lock_expires_at, live_coupon_id, live_slot) VALUES (?,?,?,?,?,?,?,'LOCKED','100.00','5.00','95.00',?,?,'S1001')",
				idgen.Next(), now, now, userID, orderID, couponID, 1, now.Add(15*time.Minute), couponID)
			return err
		})
		if err != nil {
			return nil, err, true
		}
		t1 := time.Now()
		err = tx(ctx, b.sqlDB, func(tx *sql.Tx) error {
			if err := one(tx.ExecContext(ctx, "UPDATE coupon_settlement SET status='PAID', paid_at=?, updated_at=? WHERE user_id=? AND order_id=? AND coupon_id=? AND status='LOCKED' AND lock_expires_at>?",
				now, now, userID, orderID, couponID, now)); err != nil {
				return err
			}
			return one(tx.ExecContext(ctx, "UPDATE user_coupon SET status='USED', used_at=?, updated_at=? WHERE user_id=? AND id=? AND status='LOCKED' AND order_id=?",
				now, now, userID, couponID, orderID))
		})
		if err != nil {
			return nil, err, true
		}
		return []time.Duration{t1.Sub(t0), time.Since(t1)}, nil, true
	}))
}

func tx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	t, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(t); err != nil {
		_ = t.Rollback()
		return err
	}
	return t.Commit()
}

func one(r sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n != 1 {
		return fmt.Errorf("CAS matched %d rows", n)
	}
	return nil
}

const lockQuery = `mutation($c: ID!, $o: ID!) { lockCoupon(input: {couponId: $c, order: {orderId: $o, shopNumber: "1001", amount: "100.00"}}) {
  settlement { id status discount payable } userErrors { code message } } }`
const confirmQuery = `mutation($c: ID!, $o: ID!) { confirmCouponPayment(input: {orderId: $o, couponId: $c, orderAmount: "100.00"}) {
  settlement { id status } userErrors { code message } } }`
const applicableQuery = `query($o: ID!) { applicableCoupons(order: {orderId: $o, shopNumber: "1001", amount: "100.00"}) {
  coupon { id } applicable discount code reason } }`

// server runs lockCoupon + confirmCouponPayment pairs over GraphQL: each user locks, the order
// system (one SERVICE token) confirms.
func (b *bench) server(coupons [][]int64, d time.Duration) phase {
	tokens := b.tokens(200_000, len(coupons))
	orders, err := b.signer.Issue(coupon.Actor{Role: coupon.RoleService, Service: "orders"}, 2*time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	return toPhase(run(len(coupons), d, func(u, i int) ([]time.Duration, error, bool) {
		if i >= len(coupons[u]) {
			return nil, nil, false
		}
		vars := map[string]any{"c": fmt.Sprint(coupons[u][i]), "o": fmt.Sprint(orderSeq.Add(1))}
		t0 := time.Now()
		if err := b.call(tokens[u], lockQuery, vars, "lockCoupon", "LOCKED"); err != nil {
			return nil, err, true
		}
		t1 := time.Now()
		if err := b.call(orders, confirmQuery, vars, "confirmCouponPayment", "PAID"); err != nil {
			return nil, err, true
		}
		return []time.Duration{t1.Sub(t0), time.Since(t1)}, nil, true
	}))
}

// applicable calls applicableCoupons on each user's wallet.
func (b *bench) applicable(base int64, users int, d time.Duration) applicablePhase {
	tokens := b.tokens(base, users)
	units, errs, lat, elapsed, _ := run(users, d, func(u, i int) ([]time.Duration, error, bool) {
		l, err := b.quote(tokens[u])
		return l, err, true
	})
	return toApplicable(units, errs, lat, elapsed)
}

// probe starts users (ids base+1 …) calling applicableCoupons on their wallets, one call after the
// other, and returns the function that stops them and reports their calls.
func (b *bench) probe(base int64, users int) func() applicablePhase {
	tokens := b.tokens(base, users)
	var stop atomic.Bool
	var wg sync.WaitGroup
	lats := make([][]time.Duration, users)
	errs := make([]int64, users)
	start := time.Now()
	for u := range users {
		wg.Go(func() {
			for !stop.Load() {
				l, err := b.quote(tokens[u])
				if err != nil {
					errs[u]++
					continue
				}
				lats[u] = append(lats[u], l[0])
			}
		})
	}
	return func() applicablePhase {
		stop.Store(true)
		wg.Wait()
		var all []time.Duration
		var n int64
		for u := range users {
			all = append(all, lats[u]...)
			n += errs[u]
		}
		return toApplicable(int64(len(all)), n, [][]time.Duration{all}, time.Since(start))
	}
}

// quote is one applicableCoupons call with the user's token on a 100.00 order, checked (the wallet's
// best coupon applies).
func (b *bench) quote(token string) ([]time.Duration, error) {
	t0 := time.Now()
	var resp struct {
		Data struct {
			ApplicableCoupons []struct {
				Applicable bool `json:"applicable"`
			} `json:"applicableCoupons"`
		} `json:"data"`
		Errors []any `json:"errors"`
	}
	if err := b.post(token, applicableQuery, map[string]any{"o": "1"}, &resp); err != nil {
		return nil, err
	}
	if len(resp.Errors) > 0 || len(resp.Data.ApplicableCoupons) == 0 || !resp.Data.ApplicableCoupons[0].Applicable {
		return nil, fmt.Errorf("applicableCoupons answered %+v", resp)
	}
	return []time.Duration{time.Since(t0)}, nil
}

func toApplicable(units, errs int64, lat [][]time.Duration, elapsed time.Duration) applicablePhase {
	p := applicablePhase{Calls: units, Errors: errs, PerSec: float64(units) / elapsed.Seconds()}
	if len(lat) == 1 {
		p.P50, p.P99 = pct(lat[0], 0.5), pct(lat[0], 0.99)
	}
	return p
}

func (b *bench) tokens(base int64, users int) []string {
	out := make([]string, users)
	for u := range users {
		tok, err := b.signer.Issue(coupon.Actor{UserID: base + int64(u) + 1, Role: coupon.RoleUser}, 2*time.Hour)
		if err != nil {
			log.Fatal(err)
		}
		out[u] = tok
	}
	return out
}

// call posts a settlement mutation and checks that it answered a settlement in status want.
func (b *bench) call(token, query string, vars map[string]any, field, want string) error {
	var resp struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []any                      `json:"errors"`
	}
	if err := b.post(token, query, vars, &resp); err != nil {
		return err
	}
	var p struct {
		Settlement *struct {
			Status string `json:"status"`
		} `json:"settlement"`
		UserErrors []any `json:"userErrors"`
	}
	if err := json.Unmarshal(resp.Data[field], &p); err != nil || p.Settlement == nil || p.Settlement.Status != want {
		return fmt.Errorf("%s answered %s (errors %v)", field, resp.Data[field], resp.Errors)
	}
	return nil
}

func (b *bench) post(token, query string, vars map[string]any, into any) error {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := b.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(into)
}
