// Command archive measures the archive job on a big table: rows moved per second from user_coupon to
// user_coupon_archive, and the claim latency (p50/p99) while it runs next to the latency without it.
//
// It creates the database coupond_bench_archive afresh, seeds user_coupon with -rows coupons by
// INSERT … SELECT doublings (a share -expired of them EXPIRED long ago, the rest UNUSED and valid),
// then runs -workers goroutines claiming a template through the real claim path (the Redeemer of
// services.New, in -mode: sync persists each claim in its request, so it writes to the very table
// the archive moves rows out of) for -duration without the archive, then again while one archive run (the
// job's Archiver.Run) moves every due coupon.
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
	"sync"
	"sync/atomic"
	"time"

	"coupond/bench/internal/benchenv"
	"coupond/coupon"
	"coupond/coupon/archive"
	"coupond/coupon/claim"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent/coupontemplate"
	"coupond/jobs"
	"coupond/services"
	"coupond/store"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"
)

const dbName = "coupond_bench_archive"

type latency struct {
	Claims    int64   `json:"claims"`
	Errors    int64   `json:"errors"`
	PerSec    float64 `json:"perSec"`
	P50       float64 `json:"p50Ms"`
	P99       float64 `json:"p99Ms"`
	Max       float64 `json:"maxMs"`
	FirstErr  string  `json:"firstError,omitempty"`
	WindowSec float64 `json:"windowSec"`
}

type report struct {
	Rows          int     `json:"rows"`
	Due           int     `json:"due"`
	SeedSeconds   float64 `json:"seedSeconds"`
	Mode          string  `json:"mode"`
	Workers       int     `json:"workers"`
	Batch         int     `json:"batch"`
	Baseline      latency `json:"claimsWithoutArchive"`
	During        latency `json:"claimsDuringArchive"`
	Moved         int     `json:"moved"`
	Batches       int     `json:"batches"`
	ArchiveSecs   float64 `json:"archiveSeconds"`
	RowsPerSec    float64 `json:"archiveRowsPerSec"`
	LoadAvgBefore string  `json:"loadAvgBefore"`
	LoadAvgAfter  string  `json:"loadAvgAfter"`
	BooksBalanced bool    `json:"booksBalanced"`
}

func main() {
	server := flag.String("mysql", benchenv.Env("COUPON_TEST_MYSQL", "root@tcp(127.0.0.1:3306)/"), "MySQL server DSN without a database")
	redisAddr := flag.String("redis", benchenv.Env("COUPON_TEST_REDIS", "127.0.0.1:6379"), "Redis address (data DB 0, queue DB 1)")
	rows := flag.Int("rows", 1<<20, "coupons seeded in user_coupon (rounded up to a power of two of 1024)")
	expired := flag.Float64("expired", 0.8, "share of the seeded coupons EXPIRED long ago (due for the archive)")
	workers := flag.Int("workers", 16, "concurrent claimers")
	duration := flag.Duration("duration", 10*time.Second, "length of the claim phase without the archive")
	batch := flag.Int("batch", 500, "archive batch size (COUPON_ARCHIVE_BATCH)")
	mode := flag.String("mode", "sync", "redeem mode of the claimers: sync (persisted in the request) or async")
	out := flag.String("out", "", "also write the JSON report here")
	flag.Parse()
	keys.SetNamespace("bench_archive:")
	ctx := context.Background()

	dsn, err := benchenv.FreshDatabase(*server, dbName)
	must(err)
	db, sqlDB, err := store.OpenMySQL(dsn, *workers+8)
	must(err)
	defer db.Close()
	rdb := redis.NewClient(&redis.Options{Addr: *redisAddr, PoolSize: 4 * *workers})
	defer rdb.Close()
	for _, pattern := range []string{"bench_archive:*"} {
		iter := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			rdb.Unlink(ctx, iter.Val())
		}
	}
	queue := asynq.NewClient(asynq.RedisClientOpt{Addr: *redisAddr, DB: 1})
	defer queue.Close()
	svc := services.New(db, rdb, jobs.NewQueue(queue), services.Config{
		Redeem:  claim.Config{Mode: claim.Mode(*mode), TemplateRate: 1e7},
		Archive: archive.Config{BatchSize: *batch},
	})

	rep := report{Mode: *mode, Workers: *workers, Batch: *batch}
	start := time.Now()
	rep.Rows, rep.Due = seed(sqlDB, *rows, *expired)
	rep.SeedSeconds = time.Since(start).Seconds()
	log.Printf("seeded %d coupons (%d due) in %.1f s", rep.Rows, rep.Due, rep.SeedSeconds)

	tpl, err := svc.Templates.Create(ctx, coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}, templateInput())
	must(err)
	c := &claimer{r: svc.Redeemer, tpl: tpl.ID}

	rep.LoadAvgBefore = benchenv.LoadAvg()
	log.Printf("claims without the archive for %s (load average %s)", *duration, rep.LoadAvgBefore)
	rep.Baseline = c.run(*workers, func() { time.Sleep(*duration) })

	log.Print("claims while the archive runs")
	var res archive.Result
	var archErr error
	var archSecs float64
	rep.During = c.run(*workers, func() {
		t0 := time.Now()
		res, archErr = svc.Archiver.Run(ctx)
		archSecs = time.Since(t0).Seconds()
	})
	must(archErr)
	rep.Moved, rep.Batches, rep.ArchiveSecs = res.Moved, res.Batches, archSecs
	rep.RowsPerSec = float64(res.Moved) / archSecs
	rep.LoadAvgAfter = benchenv.LoadAvg()

	var hot, cold, both int
	must(sqlDB.QueryRow("SELECT COUNT(*) FROM user_coupon").Scan(&hot))
	must(sqlDB.QueryRow("SELECT COUNT(*) FROM user_coupon_archive").Scan(&cold))
	must(sqlDB.QueryRow("SELECT COUNT(*) FROM user_coupon u JOIN user_coupon_archive a ON a.id = u.id").Scan(&both))
	claimed := int(rep.Baseline.Claims + rep.During.Claims)
	if *mode != "sync" {
		claimed = 0 // async claims wait in the outbox: no worker runs here
	}
	rep.BooksBalanced = hot+cold == rep.Rows+claimed && both == 0 && cold == rep.Due
	js, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(js))
	fmt.Printf("\narchive: %d rows in %d batches in %.1f s = %.0f rows/s (table %d rows, batch %d); books balanced: %v (hot %d + archive %d, %d in both)\n",
		rep.Moved, rep.Batches, rep.ArchiveSecs, rep.RowsPerSec, rep.Rows, rep.Batch, rep.BooksBalanced, hot, cold, both)
	fmt.Printf("claims (%s, %d workers): without archive p50 %.1f ms p99 %.1f ms %.0f/s; during archive p50 %.1f ms p99 %.1f ms %.0f/s\n",
		rep.Mode, rep.Workers, rep.Baseline.P50, rep.Baseline.P99, rep.Baseline.PerSec, rep.During.P50, rep.During.P99, rep.During.PerSec)
	fmt.Printf("load average before %s, after %s\n", rep.LoadAvgBefore, rep.LoadAvgAfter)
	if *out != "" {
		must(os.WriteFile(*out, js, 0o644))
	}
}

// seed fills user_coupon with at least n coupons: 1024 rows, then INSERT … SELECT doublings (new
// ids, users, codes); the first share of each doubling's ids is EXPIRED with updated_at a year ago
// (due, and in the archive's queue), the rest UNUSED and valid. It returns the rows and the due ones.
func seed(db *sql.DB, n int, expiredShare float64) (int, int) {
	const first = 1024
	year := time.Now().UTC().Add(-365 * 24 * time.Hour).Truncate(time.Millisecond)
	future := time.Now().UTC().Add(30 * 24 * time.Hour)
	tx, err := db.Begin()
	must(err)
	for i := 1; i <= first; i++ {
		st, end := "UNUSED", future
		if float64(i-1) < expiredShare*first {
			st, end = "EXPIRED", year
		}
		at := year.Add(time.Duration(i) * time.Second)
		_, err := tx.Exec("INSERT INTO user_coupon (id, created_at, updated_at, user_id, template_id, redemption_id, receive_count, source, status, valid_start_time, valid_end_time) "+
			"VALUES (?, ?, ?, ?, 5, ?, 1, 'DISTRIBUTION', ?, ?, ?)",
			i, at, at, i, "seed-"+strconv.Itoa(i), st, at.Add(-time.Hour), end)
		must(err)
	}
	must(tx.Commit())
	total := first
	for total < n {
		_, err := db.Exec("INSERT INTO user_coupon (id, created_at, updated_at, user_id, template_id, redemption_id, receive_count, source, status, valid_start_time, valid_end_time) "+
			"SELECT id + ?, created_at, updated_at + INTERVAL ? SECOND, user_id + ?, template_id, CONCAT('seed-', id + ?), 1, source, status, valid_start_time, valid_end_time FROM user_coupon",
			total, total, total, total)
		must(err)
		total *= 2
		log.Printf("seeded %d", total)
	}
	// The expiry would have queued the EXPIRED ones for the archive (archive_due) as it expired them.
	_, err = db.Exec("INSERT INTO archive_due (id, user_id, ended_at) SELECT id, user_id, updated_at FROM user_coupon WHERE status = 'EXPIRED'")
	must(err)
	for _, q := range []string{"ANALYZE TABLE user_coupon", "ANALYZE TABLE archive_due"} {
		_, err = db.Exec(q)
		must(err)
	}
	var due int
	must(db.QueryRow("SELECT COUNT(*) FROM user_coupon WHERE status = 'EXPIRED'").Scan(&due))
	return total, due
}

func templateInput() template.CreateInput {
	five := decimal.NewFromInt(5)
	now := time.Now()
	return template.CreateInput{
		Name: "bench", Source: coupontemplate.SourceSHOP, Target: coupontemplate.TargetSHOP_WIDE,
		Type: coupontemplate.TypeFIXED_OFF, ValidStartTime: now.Add(-time.Minute), ValidEndTime: now.Add(24 * time.Hour),
		Stock: 10_000_000, LimitPerPerson: 10_000_000, DiscountAmount: &five,
	}
}

// claimer claims one template through the Redeemer, a new user per claim.
type claimer struct {
	r    *claim.Redeemer
	tpl  int64
	next atomic.Int64
}

// run claims from workers goroutines until during returns, and reports the claims' latencies.
func (c *claimer) run(workers int, during func()) latency {
	var mu sync.Mutex
	var lat []time.Duration
	var errs atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for {
				select {
				case <-stop:
					mu.Lock()
					lat = append(lat, mine...)
					mu.Unlock()
					return
				default:
				}
				n := c.next.Add(1)
				t0 := time.Now()
				_, err := c.r.Redeem(context.Background(), 10_000_000+n, c.tpl, "bench-"+strconv.FormatInt(n, 10))
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				mine = append(mine, time.Since(t0))
			}
		}()
	}
	during()
	close(stop)
	wg.Wait()
	window := time.Since(start).Seconds()
	slices.Sort(lat)
	l := latency{Claims: int64(len(lat)), Errors: errs.Load(), PerSec: float64(len(lat)) / window, WindowSec: window}
	if len(lat) > 0 {
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		l.P50, l.P99, l.Max = ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]), ms(lat[len(lat)-1])
	}
	if s, ok := firstErr.Load().(string); ok {
		l.FirstErr = s
	}
	return l
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
