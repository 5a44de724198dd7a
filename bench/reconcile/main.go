// Command reconcile measures what reconciling a big template costs a flash sale on it (issue 20):
// the sale's last claim must reach MySQL as soon after the burst with reconciliations running as
// without them.
//
// It creates the database coupond_bench_reconcile afresh and a template whose books already hold
// -rows coupons (seeded as the reservation batches leave them: settled stock_batch headers of
// -batch items, the coupons carrying them, four per user, the template row's stock and issued,
// the users' claim counters in Redis). Then it runs two bursts of -duration on that template from
// -workers closed-loop claimers (new users, async mode, the real Redeemer) with one persister
// draining the outbox in process: the first alone, the second with reconciliations of the template
// running back to back (Reconciler.Check, as the periodic job and the reconcileTemplate query run
// it) from the burst's start until its last claim is in MySQL. For each it reports claims accepted,
// the drain lag (the burst's end to the template's issued count holding every accepted claim), and
// for the second the checks' count, latency and balance.
//
//	go run ./bench/reconcile                  # 1,000,000 coupons, 64 workers, 10 s bursts
//	bench/isolated.sh go run ./bench/reconcile
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"coupond/bench/internal/benchenv"
	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/coupon/keys"
	"coupond/coupon/reconcile"
	"coupond/coupon/template"
	"coupond/ent/coupontemplate"
	"coupond/ent/schematype"
	"coupond/jobs"
	"coupond/services"
	"coupond/store"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"
)

const (
	dbName    = "coupond_bench_reconcile"
	seedUsers = int64(1_000_000_000) // seeded holders are seedUsers + (n-1)/4
	saleUsers = int64(5_000_000_000) // the sale's users, one claim each
	perUser   = 4
)

// burst is one sale burst and its drain.
type burst struct {
	Accepted   int64   `json:"accepted"`
	Refused    int64   `json:"refused"`
	PerSec     float64 `json:"acceptedPerSec"`
	DrainLagMs float64 `json:"drainLagMs"` // burst end → every accepted claim in MySQL
	Checks     int     `json:"reconciliations,omitempty"`
	Unbalanced int     `json:"unbalancedChecks,omitempty"`
	CheckP50Ms float64 `json:"checkP50Ms,omitempty"`
	CheckMaxMs float64 `json:"checkMaxMs,omitempty"`
	FirstDrift string  `json:"firstDrift,omitempty"`
}

type report struct {
	Coupons       int     `json:"coupons"`
	Headers       int     `json:"headers"`
	SeedSeconds   float64 `json:"seedSeconds"`
	CheckAloneMs  float64 `json:"checkAloneMs"` // one reconciliation before the sale
	Workers       int     `json:"workers"`
	Without       burst   `json:"withoutReconciliation"`
	Every         string  `json:"pacedEvery"`
	Paced         burst   `json:"withPacedReconciliation"`
	With          burst   `json:"withReconciliation"`
	FinalBalanced bool    `json:"finalBalanced"`
	LoadAvgBefore string  `json:"loadAvgBefore"`
	LoadAvgAfter  string  `json:"loadAvgAfter"`
}

func main() {
	server := flag.String("mysql", benchenv.Env("COUPON_TEST_MYSQL", "root@tcp(127.0.0.1:3306)/"), "MySQL server DSN without a database")
	redisAddr := flag.String("redis", benchenv.Env("COUPON_TEST_REDIS", "127.0.0.1:6379"), "Redis address (data DB 0, queue DB 1)")
	rows := flag.Int("rows", 1_000_000, "coupons the template holds before the sale (a multiple of -batch)")
	batch := flag.Int("batch", 5000, "items per seeded stock batch header (a distribution batch's size)")
	workers := flag.Int("workers", 64, "concurrent claimers")
	duration := flag.Duration("duration", 10*time.Second, "length of each burst")
	every := flag.Duration("every", time.Second, "the paced burst's interval between reconciliations' starts (the periodic job's is a minute)")
	out := flag.String("out", "", "also write the JSON report here")
	flag.Parse()
	if *rows <= 0 || *rows > 8_000_000 || *batch <= 0 || *rows%*batch != 0 || *batch%perUser != 0 {
		log.Fatalf("-rows must be a positive multiple of -batch up to 8,000,000 (the template's stock is 10,000,000), -batch of %d", perUser)
	}
	keys.SetNamespace("bench_reconcile:")
	ctx := context.Background()

	dsn, err := benchenv.FreshDatabase(*server, dbName)
	must(err)
	db, sqlDB, err := store.OpenMySQL(dsn, *workers+8)
	must(err)
	defer db.Close()
	rdb := redis.NewClient(&redis.Options{Addr: *redisAddr, PoolSize: 4 * *workers})
	defer rdb.Close()
	unlinkNamespace(ctx, rdb)
	defer unlinkNamespace(ctx, rdb)
	queue := asynq.NewClient(asynq.RedisClientOpt{Addr: *redisAddr, DB: 1})
	defer queue.Close()
	svc := services.New(db, rdb, jobs.NewQueue(queue), services.Config{
		Redeem: claim.Config{Mode: claim.ModeAsync, TemplateRate: 1e7},
	})

	tpl, err := svc.Templates.Create(ctx, coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}, templateInput())
	must(err)
	rep := report{Workers: *workers}
	start := time.Now()
	rep.Coupons, rep.Headers = seed(ctx, sqlDB, rdb, tpl.ID, *rows, *batch, tpl.ValidEnd)
	rep.SeedSeconds = time.Since(start).Seconds()
	log.Printf("seeded %d coupons under %d headers in %.1f s", rep.Coupons, rep.Headers, rep.SeedSeconds)

	rec := reconcile.New(db, rdb, reconcile.Config{})
	platform := coupon.Actor{Role: coupon.RolePlatform}
	t0 := time.Now()
	first, err := rec.Check(ctx, platform, tpl.ID)
	must(err)
	rep.CheckAloneMs = float64(time.Since(t0).Microseconds()) / 1000
	if !first.Balanced {
		log.Fatalf("the seeded books do not balance: %v", first.Drift)
	}

	s := &sale{svc: svc, db: sqlDB, tpl: tpl.ID, issued: int64(*rows)}
	rep.LoadAvgBefore = benchenv.LoadAvg()
	log.Printf("burst without reconciliation (load average %s)", rep.LoadAvgBefore)
	rep.Without = s.run(*workers, *duration, nil, 0)
	check := func() (*reconcile.Report, error) { return rec.Check(ctx, platform, tpl.ID) }
	log.Printf("burst with a reconciliation every %s", *every)
	rep.Paced = s.run(*workers, *duration, check, *every)
	rep.Every = every.String()
	log.Printf("burst with reconciliations back to back")
	rep.With = s.run(*workers, *duration, check, 0)
	rep.LoadAvgAfter = benchenv.LoadAvg()
	last, err := rec.Check(ctx, platform, tpl.ID)
	must(err)
	rep.FinalBalanced = last.Balanced

	js, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(js))
	fmt.Printf("\ntemplate with %d coupons, %d workers, %s bursts; one reconciliation alone %.0f ms\n", rep.Coupons, rep.Workers, *duration, rep.CheckAloneMs)
	fmt.Printf("without reconciliation: %d accepted (%.0f/s), last claim in MySQL %.0f ms after the burst\n",
		rep.Without.Accepted, rep.Without.PerSec, rep.Without.DrainLagMs)
	fmt.Printf("%-24s%d accepted (%.0f/s), last claim in MySQL %.0f ms after the burst; %d checks (p50 %.0f ms, max %.0f ms), %d unbalanced\n",
		"one every "+every.String()+":", rep.Paced.Accepted, rep.Paced.PerSec, rep.Paced.DrainLagMs, rep.Paced.Checks, rep.Paced.CheckP50Ms, rep.Paced.CheckMaxMs, rep.Paced.Unbalanced)
	fmt.Printf("back to back:           %d accepted (%.0f/s), last claim in MySQL %.0f ms after the burst; %d checks (p50 %.0f ms, max %.0f ms), %d unbalanced\n",
		rep.With.Accepted, rep.With.PerSec, rep.With.DrainLagMs, rep.With.Checks, rep.With.CheckP50Ms, rep.With.CheckMaxMs, rep.With.Unbalanced)
	fmt.Printf("books balanced after both: %v; load average before %s, after %s\n", rep.FinalBalanced, rep.LoadAvgBefore, rep.LoadAvgAfter)
	if *out != "" {
		must(os.WriteFile(*out, js, 0o644))
	}
}

// seed writes n coupons of template tpl as settled reservation batches of size items would have:
// headers with seq 1…n/size, coupons (n = 1…) of user seedUsers + (n-1)/4 carrying header
// (n-1)/size, the row's stock and issued moved, each user's claim counter at 4 in Redis, and the
// template's cached hash dropped (the next claim rebuilds it from MySQL). The coupons are written
// by INSERT … SELECT doublings.
func seed(ctx context.Context, db *sql.DB, rdb *redis.Client, tpl int64, n, size int, end time.Time) (int, int) {
	const hbase = 1_000_000
	headers := n / size
	now := time.Now().UTC().Truncate(time.Second)
	for h := range headers {
		items := make([]schematype.BatchItem, size)
		for i := range items {
			c := int64(h*size + i + 1)
			items[i] = schematype.BatchItem{User: seedUsers + (c-1)/perUser, Rid: "seed-" + strconv.FormatInt(c, 10)}
		}
		js, err := json.Marshal(items)
		must(err)
		_, err = db.Exec("INSERT INTO stock_batch (id, shop_number, template_id, seq, source, reserved, used, state, items, created_at, settled_at) "+
			"VALUES (?, 1001, ?, ?, 'DISTRIBUTION', ?, ?, 'SETTLED', ?, ?, ?)", hbase+h, tpl, h+1, size, size, js, now, now)
		must(err)
	}
	cols := "id, created_at, updated_at, user_id, template_id, redemption_id, receive_count, source, status, valid_start_time, valid_end_time, stock_batch_id"
	first := min(n, 1024)
	var vals []string
	var args []any
	for c := 1; c <= first; c++ {
		vals = append(vals, "(?, ?, ?, ?, ?, ?, ?, 'DISTRIBUTION', 'UNUSED', ?, ?, ?)")
		args = append(args, c, now, now, seedUsers+int64(c-1)/perUser, tpl, "seed-"+strconv.Itoa(c), (c-1)%perUser+1,
			now.Add(-time.Hour), end.UTC(), hbase+(c-1)/size)
	}
	_, err := db.Exec("INSERT INTO user_coupon ("+cols+") VALUES "+strings.Join(vals, ", "), args...)
	must(err)
	for total := first; total < n; total *= 2 {
		_, err := db.Exec("INSERT INTO user_coupon ("+cols+") SELECT id + ?, created_at, updated_at, ? + (id + ? - 1) DIV ?, template_id, "+
			"CONCAT('seed-', id + ?), (id + ? - 1) MOD ? + 1, source, status, valid_start_time, valid_end_time, ? + (id + ? - 1) DIV ? "+
			"FROM user_coupon WHERE id <= ?",
			total, seedUsers, total, perUser, total, total, perUser, hbase, total, size, min(total, n-total))
		must(err)
		log.Printf("seeded %d coupons", min(2*total, n))
	}
	_, err = db.Exec("UPDATE coupon_template SET stock = stock - ?, issued = issued + ?, batch_seq = ? WHERE id = ?", n, n, headers, tpl)
	must(err)
	_, err = db.Exec("ANALYZE TABLE user_coupon")
	must(err)
	pipe := rdb.Pipeline()
	for u := range int64(n / perUser) {
		k := keys.ClaimCounter(tpl, seedUsers+u)
		pipe.HSet(ctx, k, "n", perUser, "seq", perUser)
		pipe.ExpireAt(ctx, k, end)
		if pipe.Len() >= 20_000 {
			_, err := pipe.Exec(ctx)
			must(err)
		}
	}
	_, err = pipe.Exec(ctx)
	must(err)
	must(rdb.Del(ctx, keys.Template(tpl)).Err())
	return n, headers
}

func templateInput() template.CreateInput {
	five := decimal.NewFromInt(5)
	now := time.Now()
	return template.CreateInput{
		Name: "bench", Source: coupontemplate.SourceSHOP, Target: coupontemplate.TargetSHOP_WIDE,
		Type: coupontemplate.TypeFIXED_OFF, ValidStartTime: now.Add(-time.Minute), ValidEndTime: now.Add(24 * time.Hour),
		Stock: 10_000_000, LimitPerPerson: perUser, DiscountAmount: &five,
	}
}

// sale claims one template and persists its outbox in process.
type sale struct {
	svc    *services.Services
	db     *sql.DB
	tpl    int64
	next   atomic.Int64
	issued int64 // the template's issued count before the next burst
}

// run claims from workers closed-loop goroutines for d, persisting meanwhile, then waits until the
// template's issued count holds every accepted claim. check, when not nil, runs from the burst's
// start until then: one run starting every pace, or back to back when pace is 0.
func (s *sale) run(workers int, d time.Duration, check func() (*reconcile.Report, error), pace time.Duration) burst {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var b burst
	var bg sync.WaitGroup
	bg.Add(1)
	go func() { // the persister: what the outbox:persist tasks do, without asynq's latency
		defer bg.Done()
		for ctx.Err() == nil {
			if n, err := s.svc.Persister.Drain(ctx, s.tpl); err != nil && ctx.Err() == nil {
				log.Printf("drain: %v", err)
				time.Sleep(10 * time.Millisecond)
			} else if n == 0 {
				time.Sleep(2 * time.Millisecond)
			}
		}
	}()
	var lat []time.Duration
	if check != nil {
		bg.Add(1)
		go func() {
			defer bg.Done()
			for ctx.Err() == nil {
				t0 := time.Now()
				rep, err := check()
				took := time.Since(t0)
				if ctx.Err() != nil {
					return
				}
				must(err)
				lat = append(lat, took)
				if !rep.Balanced {
					b.Unbalanced++
					if b.FirstDrift == "" {
						b.FirstDrift = strings.Join(rep.Drift, "; ")
					}
				}
				select {
				case <-ctx.Done():
				case <-time.After(pace - took):
				}
			}
		}()
	}
	var accepted, refused atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				n := s.next.Add(1)
				if _, err := s.svc.Redeemer.Redeem(context.Background(), saleUsers+n, s.tpl, "bench-"+strconv.FormatInt(n, 10)); err != nil {
					refused.Add(1)
				} else {
					accepted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	end := time.Now()
	want := s.issued + accepted.Load()
	for {
		var issued int64
		must(s.db.QueryRow("SELECT issued FROM coupon_template WHERE id = ?", s.tpl).Scan(&issued))
		if issued >= want {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.DrainLagMs = float64(time.Since(end).Microseconds()) / 1000
	stop()
	bg.Wait()
	s.issued = want
	b.Accepted, b.Refused = accepted.Load(), refused.Load()
	b.PerSec = float64(b.Accepted) / d.Seconds()
	b.Checks = len(lat)
	if len(lat) > 0 {
		slices.Sort(lat)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.CheckP50Ms, b.CheckMaxMs = ms(lat[len(lat)/2]), ms(lat[len(lat)-1])
	}
	return b
}

// unlinkNamespace deletes the benchmark's keys.
func unlinkNamespace(ctx context.Context, rdb *redis.Client) {
	iter := rdb.Scan(ctx, 0, keys.Namespace()+"*", 1000).Iterator()
	for iter.Next(ctx) {
		rdb.Unlink(ctx, iter.Val())
	}
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
