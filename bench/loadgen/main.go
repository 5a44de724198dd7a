// Command loadgen drives the redeemCoupon mutation of a running coupond over HTTP and reports, as
// JSON, how many claims were accepted per second and with which latency.
//
//	go run ./bench/loadgen -url http://127.0.0.1:8080/query -duration 10s            # closed loop, max rate
//	go run ./bench/loadgen -url ... -template 123 -rate 2000 -duration 10s          # open loop, 2000/s
//
// Users: -users tokens are minted up front (user ids -user-base, -user-base+1, ...; role USER,
// signed with -secret, which must be the server's COUPON_JWT_SECRET); attempt number i is made by
// user i mod -users, so every user claims at the same low rate whatever the total rate.
//
// Template: unless -template is given, the loadgen creates one through createCouponTemplate as a
// MERCHANT (stock -stock, limitPerPerson -limit: large enough that the burst neither runs out nor
// hits the per-person limit; -stock-shards its stockShards).
//
// Load: -workers goroutines share one keep-alive HTTP client. With -rate 0 (closed loop) each
// worker sends its next claim as soon as the previous answer arrived, for -duration. With -rate > 0
// (open loop) claim i is due at start + i/rate; the first free worker sends it, and its latency is
// measured from the time it was due, not from when it was sent, so a saturated server shows up as
// latency rather than as a quietly lower rate (no coordinated omission). A -warmup phase (same
// load shape, reported separately) runs first: connections, the template cache and the server's
// in-process metadata copy are warm when the measured burst starts.
//
// Optional measurements around the burst:
//   - -redis: INFO commandstats and INFO stats of that Redis right before the burst and after it
//     (after the drain when -drain-dsn is set): commands per accepted claim. Commandstats are per
//     server, not per database, so they include asynq's queue traffic when it shares the instance,
//     the commands run inside Lua scripts, and anything other clients run meanwhile.
//   - -drain-dsn: after the last answer of the burst, poll MySQL until every accepted claim of the
//     template is a user_coupon row; report how many ms after the burst that happened, the CPU
//     of the drain, and MariaDB's status counters over the burst and over the drain.
//   - -pids name=pid,...: CPU seconds each process used during the burst, and the machine's total.
//   - -pprof-url: fetch that URL (a /debug/pprof/profile?seconds=N) when the burst starts and save
//     the answer to -pprof-out.
//
// The report goes to stdout (and -out); -env-out writes the key figures as shell assignments for
// bench/run.sh.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"coupond/auth"
	"coupond/coupon"

	_ "github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

const devSecret = "coupond-dev-secret-change-me"

type options struct {
	url, secret        string
	users              int
	userBase           int64
	workers            int
	duration, warmup   time.Duration
	rate               float64
	templateID         int64
	stock, limit       int
	stockShards        int
	requestIDs         bool
	timeout            time.Duration
	label              string
	redisAddr          string
	drainDSN           string
	drainTimeout       time.Duration
	pids               string
	pprofURL, pprofOut string
	out, envOut        string
	merchantID, shop   int64
}

func main() {
	var o options
	flag.StringVar(&o.url, "url", "http://127.0.0.1:8080/query", "GraphQL endpoint")
	flag.StringVar(&o.secret, "secret", envOr("COUPON_JWT_SECRET", devSecret), "the server's COUPON_JWT_SECRET")
	flag.IntVar(&o.users, "users", 20000, "distinct users (one pre-minted token each)")
	flag.Int64Var(&o.userBase, "user-base", 1_000_000, "first user id")
	flag.IntVar(&o.workers, "workers", 64, "concurrent workers (= max requests in flight)")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "measured burst length")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured warm-up before the burst (0: none)")
	flag.Float64Var(&o.rate, "rate", 0, "target claims/s (open loop); 0 = closed loop at max rate")
	flag.Int64Var(&o.templateID, "template", 0, "template id to claim; 0 = create one as a merchant")
	flag.IntVar(&o.stock, "stock", 10_000_000, "stock of the created template")
	flag.IntVar(&o.limit, "limit", 1_000_000, "limitPerPerson of the created template")
	flag.IntVar(&o.stockShards, "stock-shards", 0, "stockShards of the created template (0: the server's default)")
	flag.Int64Var(&o.merchantID, "merchant", 1, "merchant user id that creates the template")
	flag.Int64Var(&o.shop, "shop", 1001, "merchant's shop number")
	flag.BoolVar(&o.requestIDs, "request-id", true, "send a unique requestId with every claim (as the mobile app does)")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Second, "HTTP timeout of one request")
	flag.StringVar(&o.label, "label", "", "free text copied into the report")
	flag.StringVar(&o.redisAddr, "redis", "", "Redis address for INFO commandstats before/after the burst (empty: skip)")
	flag.StringVar(&o.drainDSN, "drain-dsn", "", "MySQL DSN (go-sql-driver) to wait for the claims to be persisted (empty: skip)")
	flag.DurationVar(&o.drainTimeout, "drain-timeout", 120*time.Second, "give up waiting for the drain after this long")
	flag.StringVar(&o.pids, "pids", "", "name=pid,... processes whose CPU time to measure during the burst")
	flag.StringVar(&o.pprofURL, "pprof-url", "", "URL fetched when the burst starts, e.g. http://127.0.0.1:6060/debug/pprof/profile?seconds=10")
	flag.StringVar(&o.pprofOut, "pprof-out", "", "file the -pprof-url answer is saved to")
	flag.StringVar(&o.out, "out", "", "also write the JSON report to this file")
	flag.StringVar(&o.envOut, "env-out", "", "write the key figures as shell assignments to this file")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "loadgen: "+format+"\n", args...)
}

// Report is the JSON answer.
type Report struct {
	Label      string  `json:"label,omitempty"`
	URL        string  `json:"url"`
	TemplateID int64   `json:"template_id"`
	Users      int     `json:"users"`
	Workers    int     `json:"workers"`
	Loop       string  `json:"loop"` // closed or open
	TargetRate float64 `json:"target_rate,omitempty"`
	RequestIDs bool    `json:"request_ids"`
	DurationS  float64 `json:"duration_s"` // burst start to its last answer
	Phase              // the measured burst
	Warmup     *Phase  `json:"warmup,omitempty"`
	// WarmupDrainMS: how long after the warm-up its claims were all in MySQL (the burst starts then).
	WarmupDrainMS float64     `json:"warmup_drain_ms,omitempty"`
	Drain         *Drain      `json:"drain,omitempty"`
	Redis         *RedisDelta `json:"redis,omitempty"`
	CPU           *CPUReport  `json:"cpu,omitempty"`
	// With -drain-dsn: CPU from the burst's end to the drain's, and MariaDB's status counters
	// (mysqlCounters) over the burst and over the drain.
	DrainCPU   *CPUReport       `json:"drain_cpu,omitempty"`
	MySQLBurst map[string]int64 `json:"mysql_burst,omitempty"`
	MySQLDrain map[string]int64 `json:"mysql_drain,omitempty"`
	// RedisRewrites: AOF rewrites or RDB saves Redis started during the burst (with -redis).
	RedisRewrites int    `json:"redis_rewrites,omitempty"`
	Profile       string `json:"profile,omitempty"`
	ProfileError  string `json:"profile_error,omitempty"`
}

// Phase is what one load phase did.
type Phase struct {
	Attempts     int64            `json:"attempts"`
	Accepted     int64            `json:"accepted"`
	Statuses     map[string]int64 `json:"statuses"`    // redemption.status of accepted claims
	Refusals     map[string]int64 `json:"refusals"`    // userErrors code → count
	Errors       int64            `json:"errors"`      // transport, HTTP and top-level GraphQL errors
	ErrorKinds   map[string]int64 `json:"error_kinds"` // kind → count
	AcceptedPerS float64          `json:"accepted_per_s"`
	AttemptsPerS float64          `json:"attempts_per_s"`
	LatencyMS    Latency          `json:"latency_ms"`
	MaxLagMS     float64          `json:"max_start_lag_ms,omitempty"` // open loop: worst send delay behind schedule
	Timeline     []Slice          `json:"timeline,omitempty"`         // claims due/sent in each timelineStep
	// DisturbedClaims were due/sent in a slice overlapping a Redis AOF rewrite or RDB save (with
	// -redis); UndisturbedLatencyMS are the percentiles of the other claims (set when there were some).
	DisturbedClaims      int64    `json:"disturbed_claims,omitempty"`
	UndisturbedLatencyMS *Latency `json:"undisturbed_latency_ms,omitempty"`
}

// timelineStep is the width of one Timeline slice.
const timelineStep = 500 * time.Millisecond

// Slice is the latency of the claims due (open loop) or sent (closed loop) in one timelineStep.
type Slice struct {
	AtS    float64 `json:"at_s"`
	Claims int     `json:"claims"`
	P50    float64 `json:"p50_ms"`
	P99    float64 `json:"p99_ms"`
	Max    float64 `json:"max_ms"`
	// RedisRewriting: Redis was rewriting its AOF or saving an RDB during this slice or the one
	// before it.
	RedisRewriting bool `json:"redis_rewriting,omitempty"`
}

// Latency percentiles in milliseconds (every attempt, accepted or not).
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Drain is how long after the burst the last accepted claim was in MySQL.
type Drain struct {
	ExpectedRows int64   `json:"expected_rows"`
	Rows         int64   `json:"rows"`
	MSAfterBurst float64 `json:"ms_after_burst"`
	TimedOut     bool    `json:"timed_out"`
	Method       string  `json:"method"`
}

// RedisDelta is the change of INFO commandstats and INFO stats over the measured window.
type RedisDelta struct {
	Window          string             `json:"window"`
	EvalCalls       int64              `json:"eval_calls"` // evalsha + eval (+ evalsha_ro/eval_ro)
	TotalCalls      int64              `json:"total_calls"`
	TotalProcessed  int64              `json:"total_commands_processed"`
	EvalPerClaim    float64            `json:"eval_per_claim"`
	TotalPerClaim   float64            `json:"total_per_claim"`
	EvalUsecPerCall float64            `json:"evalsha_usec_per_call"` // Redis CPU per script call
	PerClaim        map[string]float64 `json:"per_claim"`             // command → calls per accepted claim
	BusySeconds     float64            `json:"busy_seconds"`          // sum of usec of all commands
}

// CPUReport is CPU seconds used during the burst.
type CPUReport struct {
	WallS      float64            `json:"wall_s"`
	Cores      int                `json:"cores"`
	Processes  map[string]float64 `json:"process_cpu_s"`
	LoadgenS   float64            `json:"loadgen_cpu_s"`
	MachineS   float64            `json:"machine_busy_cpu_s"` // all cores, all processes (from /proc/stat)
	MachinePct float64            `json:"machine_busy_pct"`   // of cores × wall
	OtherS     float64            `json:"other_cpu_s"`        // machine busy minus the listed processes and the loadgen
}

func run(o options) error {
	if o.users < 1 || o.workers < 1 || o.duration <= 0 {
		return errors.New("-users, -workers and -duration must be positive")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	client := &http.Client{
		Timeout: o.timeout,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        o.workers * 2,
			MaxIdleConnsPerHost: o.workers * 2,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
	}
	signer := auth.NewSigner(o.secret)

	if o.templateID == 0 {
		id, err := createTemplate(ctx, client, signer, o)
		if err != nil {
			return fmt.Errorf("create template: %w", err)
		}
		o.templateID = id
		logf("created template %d (stock %d, limitPerPerson %d)", id, o.stock, o.limit)
	}

	tokens := make([]string, o.users)
	for i := range tokens {
		tok, err := signer.Issue(coupon.Actor{UserID: o.userBase + int64(i), Role: coupon.RoleUser}, 6*time.Hour)
		if err != nil {
			return err
		}
		tokens[i] = "Bearer " + tok
	}
	logf("minted %d user tokens", o.users)

	g := &gen{o: o, client: client, tokens: tokens, tid: strconv.FormatInt(o.templateID, 10),
		runID: strconv.FormatInt(time.Now().UnixNano(), 36)}
	var rdb *redis.Client
	if o.redisAddr != "" {
		rdb = redis.NewClient(&redis.Options{Addr: o.redisAddr, PoolSize: 2})
		defer rdb.Close()
		g.persist = watchPersistence(ctx, rdb)
	}

	rep := Report{Label: o.label, URL: o.url, TemplateID: o.templateID, Users: o.users, Workers: o.workers,
		Loop: "closed", TargetRate: o.rate, RequestIDs: o.requestIDs}
	if o.rate > 0 {
		rep.Loop = "open"
	}

	var db *sql.DB
	var used0, rows0 int64
	if o.drainDSN != "" {
		var err error
		if db, err = sql.Open("mysql", o.drainDSN); err != nil {
			return err
		}
		defer db.Close()
		db.SetMaxOpenConns(2)
		// Before any claim of this run: the settled coupons and rows to count from.
		if used0, _, err = dbSettled(ctx, db, o.templateID); err != nil {
			return fmt.Errorf("drain: %w", err)
		}
		if rows0, err = dbRows(ctx, db, o.templateID); err != nil {
			return fmt.Errorf("drain: %w", err)
		}
	}

	if o.warmup > 0 {
		logf("warm-up %s", o.warmup)
		w := g.phase(ctx, o.warmup)
		rep.Warmup = &w.Phase
		if w.Errors > 0 && w.Accepted == 0 {
			return fmt.Errorf("warm-up: every claim failed: %v %v", w.ErrorKinds, w.Refusals)
		}
		if db != nil {
			// Let the warm-up's claims reach MySQL first, so that the burst's window (Redis
			// commands, CPU, drain) holds the burst's own work only.
			t0 := time.Now()
			wd := waitDrain(ctx, db, o, used0+w.Accepted, rows0+w.Accepted, t0)
			logf("warm-up claims persisted %.0f ms after the warm-up (timed out: %v)", wd.MSAfterBurst, wd.TimedOut)
			rep.WarmupDrainMS = wd.MSAfterBurst
		}
	}

	var before map[string]cmdStat
	var procBefore int64
	if rdb != nil {
		var err error
		if before, procBefore, err = redisStats(ctx, rdb); err != nil {
			return fmt.Errorf("redis stats: %w", err)
		}
	}
	pids, err := parsePids(o.pids)
	if err != nil {
		return err
	}
	cpu0 := sampleCPU(pids)
	var status0 map[string]int64
	if db != nil {
		status0 = mysqlStatus(ctx, db)
	}

	var profWG sync.WaitGroup
	if o.pprofURL != "" {
		profWG.Add(1)
		go func() {
			defer profWG.Done()
			if err := fetchProfile(ctx, o.pprofURL, o.pprofOut); err != nil {
				rep.ProfileError = err.Error()
				logf("profile: %v", err)
				return
			}
			rep.Profile = o.pprofOut
		}()
	}

	logf("burst %s, %s loop, %d workers, %d users, template %d", o.duration, rep.Loop, o.workers, o.users, o.templateID)
	rewrites0 := g.persist.count()
	res := g.phase(ctx, o.duration)
	burstEnd := time.Now()
	rep.RedisRewrites = g.persist.count() - rewrites0
	cpu1 := sampleCPU(pids)
	var status1 map[string]int64
	if db != nil {
		status1 = mysqlStatus(ctx, db)
		rep.MySQLBurst = mysqlDelta(status0, status1)
	}
	rep.Phase = res.Phase
	rep.DurationS = res.elapsed.Seconds()
	rep.CPU = cpuReport(pids, cpu0, cpu1)
	logf("burst done: %d attempts, %d accepted (%.0f/s), p99 %.1f ms, %d errors",
		res.Attempts, res.Accepted, res.AcceptedPerS, res.LatencyMS.P99, res.Errors)

	if db != nil {
		accepted := res.Accepted
		if rep.Warmup != nil {
			accepted += rep.Warmup.Accepted
		}
		rep.Drain = waitDrain(ctx, db, o, used0+accepted, rows0+accepted, burstEnd)
		rep.DrainCPU = cpuReport(pids, cpu1, sampleCPU(pids))
		rep.MySQLDrain = mysqlDelta(status1, mysqlStatus(ctx, db))
		logf("drain: %d/%d rows, %.0f ms after the burst (timed out: %v)",
			rep.Drain.Rows, rep.Drain.ExpectedRows, rep.Drain.MSAfterBurst, rep.Drain.TimedOut)
	}
	if rdb != nil {
		after, procAfter, err := redisStats(ctx, rdb)
		if err != nil {
			return fmt.Errorf("redis stats: %w", err)
		}
		rep.Redis = redisDelta(before, after, procAfter-procBefore, res.Accepted)
		rep.Redis.Window = "burst"
		if db != nil {
			rep.Redis.Window = "burst and drain"
		}
	}
	profWG.Wait()

	out, _ := json.MarshalIndent(rep, "", "  ")
	out = append(out, '\n')
	os.Stdout.Write(out)
	if o.out != "" {
		if err := os.WriteFile(o.out, out, 0o644); err != nil {
			return err
		}
	}
	if o.envOut != "" {
		if err := os.WriteFile(o.envOut, []byte(envFile(rep)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ---- load ----

type gen struct {
	o       options
	persist *persistWatch // nil without -redis
	client  *http.Client
	tokens  []string
	tid     string
	runID   string
	seq     atomic.Int64 // attempt number over all phases: picks the user and the requestId
}

type phaseResult struct {
	Phase
	elapsed time.Duration
}

type workerStats struct {
	lat        []int64 // ns
	at         []int64 // ns since the phase start when the claim was due (open loop) or sent
	attempts   int64
	accepted   int64
	statuses   map[string]int64
	refusals   map[string]int64
	errors     int64
	errorKinds map[string]int64
	maxLag     time.Duration
}

// phase runs the configured load for d and returns what happened.
func (g *gen) phase(ctx context.Context, d time.Duration) phaseResult {
	start := time.Now()
	deadline := start.Add(d)
	var next atomic.Int64 // open loop: the next scheduled slot
	interval := time.Duration(0)
	if g.o.rate > 0 {
		interval = time.Duration(float64(time.Second) / g.o.rate)
	}
	stats := make([]*workerStats, g.o.workers)
	var wg sync.WaitGroup
	for w := range stats {
		st := &workerStats{statuses: map[string]int64{}, refusals: map[string]int64{}, errorKinds: map[string]int64{}}
		if g.o.rate > 0 {
			st.lat = make([]int64, 0, int(g.o.rate*d.Seconds())/g.o.workers+16)
		} else {
			st.lat = make([]int64, 0, 4096)
		}
		stats[w] = st
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			for ctx.Err() == nil {
				var due time.Time
				if interval > 0 {
					due = start.Add(time.Duration(next.Add(1)-1) * interval)
					if !due.Before(deadline) {
						return
					}
					if wait := time.Until(due); wait > 0 {
						time.Sleep(wait)
					}
					if lag := time.Since(due); lag > st.maxLag {
						st.maxLag = lag
					}
				} else {
					due = time.Now()
					if !due.Before(deadline) {
						return
					}
				}
				g.claim(ctx, &buf, st)
				st.lat = append(st.lat, int64(time.Since(due)))
				st.at = append(st.at, int64(due.Sub(start)))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	r := phaseResult{elapsed: elapsed, Phase: Phase{Statuses: map[string]int64{}, Refusals: map[string]int64{}, ErrorKinds: map[string]int64{}}}
	var all []int64
	var maxLag time.Duration
	buckets := make([][]int64, int(d/timelineStep)+1)
	for _, st := range stats {
		for i, at := range st.at {
			b := min(int(time.Duration(at)/timelineStep), len(buckets)-1)
			buckets[b] = append(buckets[b], st.lat[i])
		}
		r.Attempts += st.attempts
		r.Accepted += st.accepted
		r.Errors += st.errors
		for k, v := range st.statuses {
			r.Statuses[k] += v
		}
		for k, v := range st.refusals {
			r.Refusals[k] += v
		}
		for k, v := range st.errorKinds {
			r.ErrorKinds[k] += v
		}
		all = append(all, st.lat...)
		maxLag = max(maxLag, st.maxLag)
	}
	secs := elapsed.Seconds()
	r.AcceptedPerS = round(float64(r.Accepted)/secs, 1)
	r.AttemptsPerS = round(float64(r.Attempts)/secs, 1)
	r.LatencyMS = percentiles(all)
	// Slices during which Redis rewrote its AOF (or saved an RDB), and the slice after: the fork,
	// the child's writes and its fsync compete with the claim path for the cores and the disk.
	var calm []int64
	for i, b := range buckets {
		if len(b) == 0 {
			continue
		}
		from := start.Add(time.Duration(i) * timelineStep)
		busy := g.persist != nil && g.persist.overlaps(from.Add(-timelineStep), from.Add(timelineStep))
		if busy {
			r.DisturbedClaims += int64(len(b))
		} else {
			calm = append(calm, b...)
		}
		l := percentiles(b)
		r.Timeline = append(r.Timeline, Slice{AtS: round((time.Duration(i) * timelineStep).Seconds(), 1),
			Claims: len(b), P50: l.P50, P99: l.P99, Max: l.Max, RedisRewriting: busy})
	}
	if r.DisturbedClaims > 0 {
		l := percentiles(calm)
		r.UndisturbedLatencyMS = &l
	}
	if g.o.rate > 0 {
		r.MaxLagMS = round(ms(maxLag), 2)
	}
	return r
}

const redeemQuery = `mutation($t:ID!,$r:String){redeemCoupon(input:{templateId:$t,requestId:$r}){redemption{id status}userErrors{code}}}`

type redeemAnswer struct {
	Data *struct {
		RedeemCoupon *struct {
			Redemption *struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"redemption"`
			UserErrors []struct {
				Code string `json:"code"`
			} `json:"userErrors"`
		} `json:"redeemCoupon"`
	} `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// claim sends one redeemCoupon and records its outcome in st.
func (g *gen) claim(ctx context.Context, buf *bytes.Buffer, st *workerStats) {
	n := g.seq.Add(1) - 1
	buf.Reset()
	buf.WriteString(`{"query":"`)
	buf.WriteString(strings.ReplaceAll(redeemQuery, `"`, `\"`))
	buf.WriteString(`","variables":{"t":"`)
	buf.WriteString(g.tid)
	buf.WriteString(`"`)
	if g.o.requestIDs {
		buf.WriteString(`,"r":"lg`)
		buf.WriteString(g.runID)
		buf.WriteByte('-')
		buf.WriteString(strconv.FormatInt(n, 10))
		buf.WriteString(`"`)
	}
	buf.WriteString(`}}`)
	st.attempts++

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.o.url, bytes.NewReader(buf.Bytes()))
	if err != nil {
		st.fail("request: " + err.Error())
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", g.tokens[n%int64(len(g.tokens))])
	resp, err := g.client.Do(req)
	if err != nil {
		st.fail(transportKind(err))
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		st.fail(transportKind(err))
		return
	}
	if resp.StatusCode != http.StatusOK {
		st.fail("http " + strconv.Itoa(resp.StatusCode))
		return
	}
	var a redeemAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		st.fail("bad json")
		return
	}
	if len(a.Errors) > 0 {
		code, _ := a.Errors[0].Extensions["code"].(string)
		if code == "" {
			code = a.Errors[0].Message
		}
		st.fail("graphql " + code)
		return
	}
	if a.Data == nil || a.Data.RedeemCoupon == nil {
		st.fail("empty answer")
		return
	}
	p := a.Data.RedeemCoupon
	switch {
	case p.Redemption != nil:
		st.accepted++
		st.statuses[p.Redemption.Status]++
	case len(p.UserErrors) > 0:
		st.refusals[p.UserErrors[0].Code]++
	default:
		st.fail("neither redemption nor userErrors")
	}
}

func (st *workerStats) fail(kind string) {
	st.errors++
	st.errorKinds[kind]++
}

func transportKind(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	}
	s := err.Error()
	if len(s) > 60 {
		s = s[:60]
	}
	return "transport: " + s
}

func percentiles(ns []int64) Latency {
	if len(ns) == 0 {
		return Latency{}
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i] < ns[j] })
	at := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(ns)))) - 1
		return round(float64(ns[max(i, 0)])/1e6, 2)
	}
	var sum float64
	for _, v := range ns {
		sum += float64(v)
	}
	return Latency{P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: at(1), Mean: round(sum/float64(len(ns))/1e6, 2)}
}

// ---- template ----

const createQuery = `mutation($in:CreateCouponTemplateInput!){createCouponTemplate(input:$in){template{id stock}userErrors{code field message}}}`

func createTemplate(ctx context.Context, client *http.Client, signer *auth.Signer, o options) (int64, error) {
	tok, err := signer.Issue(coupon.Actor{UserID: o.merchantID, Role: coupon.RoleMerchant, Shop: o.shop}, time.Hour)
	if err != nil {
		return 0, err
	}
	now := time.Now().UTC()
	in := map[string]any{
		"name":            "bench " + now.Format("2006-01-02 15:04:05"),
		"source":          "SHOP",
		"target":          "SHOP_WIDE",
		"type":            "THRESHOLD_OFF",
		"validStartTime":  now.Add(-time.Minute).Format(time.RFC3339),
		"validEndTime":    now.Add(24 * time.Hour).Format(time.RFC3339),
		"stock":           o.stock,
		"limitPerPerson":  o.limit,
		"thresholdAmount": "100.00",
		"discountAmount":  "10.00",
	}
	if o.stockShards > 0 {
		in["stockShards"] = o.stockShards
	}
	body, _ := json.Marshal(map[string]any{"query": createQuery, "variables": map[string]any{"in": in}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var a struct {
		Data *struct {
			CreateCouponTemplate *struct {
				Template *struct {
					ID string `json:"id"`
				} `json:"template"`
				UserErrors []struct {
					Code    string   `json:"code"`
					Field   []string `json:"field"`
					Message string   `json:"message"`
				} `json:"userErrors"`
			} `json:"createCouponTemplate"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return 0, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, raw)
	}
	if len(a.Errors) > 0 || a.Data == nil || a.Data.CreateCouponTemplate == nil || a.Data.CreateCouponTemplate.Template == nil {
		return 0, fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, raw)
	}
	return strconv.ParseInt(a.Data.CreateCouponTemplate.Template.ID, 10, 64)
}

// ---- drain ----

func dbRows(ctx context.Context, db *sql.DB, id int64) (int64, error) {
	var n int64
	err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM user_coupon WHERE template_id = ?", id).Scan(&n)
	return n, err
}

// dbSettled reads the template's reservation headers (stock_batch, a few hundred rows per run
// through its (template_id, state) index): the coupons the settled ones wrote, and how many are
// still OPEN.
func dbSettled(ctx context.Context, db *sql.DB, id int64) (used, open int64, err error) {
	err = db.QueryRowContext(ctx, "SELECT COALESCE(SUM(used), 0), COALESCE(SUM(state = 'OPEN'), 0) FROM stock_batch WHERE template_id = ?", id).Scan(&used, &open)
	return used, open, err
}

// waitDrain waits until the template's claims are all in MySQL: until its reservation headers are
// all settled with wantUsed coupons written (each batch of claims takes its units in one
// transaction, T1, and writes its coupons before the one that settles it, T3), polled every 5 ms;
// then one COUNT(*) of user_coupon confirms the rows, and decides (polled every 50 ms) when the
// headers disagree. The stock alone cannot tell: T1 lowers it before the coupons are written. The
// COUNT(*) reads every coupon of the template, so it is run once, not polled, where it would
// compete with the persister for the same two cores and MariaDB.
func waitDrain(ctx context.Context, db *sql.DB, o options, wantUsed, wantRows int64, burstEnd time.Time) *Drain {
	d := &Drain{ExpectedRows: wantRows, Method: "stock_batch headers settled, confirmed by COUNT(*) of user_coupon"}
	giveUp := burstEnd.Add(o.drainTimeout)
	settled := false
	for {
		now := time.Now()
		if !settled {
			if used, open, err := dbSettled(ctx, db, o.templateID); err == nil && open == 0 && used >= wantUsed {
				settled = true
				d.MSAfterBurst = round(ms(now.Sub(burstEnd)), 1)
			}
		}
		if settled {
			if n, err := dbRows(ctx, db, o.templateID); err == nil {
				d.Rows = n
				if n >= wantRows {
					return d
				}
				d.Method = "COUNT(*) of user_coupon (the headers ran ahead of the rows)"
				d.MSAfterBurst = round(ms(time.Since(burstEnd)), 1)
			}
		}
		if now.After(giveUp) || ctx.Err() != nil {
			d.TimedOut = true
			d.MSAfterBurst = round(ms(time.Since(burstEnd)), 1)
			d.Rows, _ = dbRows(context.Background(), db, o.templateID)
			return d
		}
		if settled {
			time.Sleep(50 * time.Millisecond)
		} else {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// mysqlCounters are the server status counters a window reports (SHOW GLOBAL STATUS): the
// statements, the rows they touched and the pages read, which tell a plan gone wrong from more work.
var mysqlCounters = []string{"Com_select", "Com_insert", "Com_update", "Com_load", "Com_commit", "Com_rollback",
	"Handler_read_key", "Handler_read_next", "Handler_write", "Handler_update", "Innodb_buffer_pool_read_requests",
	"Innodb_row_lock_waits", "Innodb_deadlocks", "Select_scan", "Select_range"}

// mysqlStatus samples mysqlCounters (nil when the server does not answer).
func mysqlStatus(ctx context.Context, db *sql.DB) map[string]int64 {
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS")
	if err != nil {
		return nil
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name, v string
		if rows.Scan(&name, &v) != nil {
			return nil
		}
		for _, c := range mysqlCounters {
			if strings.EqualFold(name, c) {
				out[c], _ = strconv.ParseInt(v, 10, 64)
			}
		}
	}
	return out
}

// mysqlDelta is b − a per counter (nil when either sample is missing).
func mysqlDelta(a, b map[string]int64) map[string]int64 {
	if a == nil || b == nil {
		return nil
	}
	out := map[string]int64{}
	for k, v := range b {
		out[k] = v - a[k]
	}
	return out
}

// ---- redis ----

type cmdStat struct {
	calls int64
	usec  int64
}

// redisStats parses INFO commandstats and total_commands_processed.
func redisStats(ctx context.Context, rdb *redis.Client) (map[string]cmdStat, int64, error) {
	txt, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, 0, err
	}
	out := map[string]cmdStat{}
	for _, line := range strings.Split(txt, "\n") {
		line = strings.TrimSpace(line)
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		var s cmdStat
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "calls":
				s.calls, _ = strconv.ParseInt(v, 10, 64)
			case "usec":
				s.usec, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		out[strings.TrimPrefix(name, "cmdstat_")] = s
	}
	st, err := rdb.Info(ctx, "stats").Result()
	if err != nil {
		return nil, 0, err
	}
	var processed int64
	for _, line := range strings.Split(st, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_commands_processed:"); ok {
			processed, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return out, processed, nil
}

func redisDelta(before, after map[string]cmdStat, processed, accepted int64) *RedisDelta {
	d := &RedisDelta{TotalProcessed: processed, PerClaim: map[string]float64{}}
	var busy, evalUsec, evalshaCalls int64
	for name, a := range after {
		b := before[name]
		calls := a.calls - b.calls
		busy += a.usec - b.usec
		if calls <= 0 {
			continue
		}
		d.TotalCalls += calls
		switch name {
		case "evalsha", "eval", "evalsha_ro", "eval_ro":
			d.EvalCalls += calls
		}
		if name == "evalsha" {
			evalshaCalls = calls
			evalUsec = a.usec - b.usec
		}
		if accepted > 0 {
			d.PerClaim[name] = round(float64(calls)/float64(accepted), 3)
		}
	}
	if accepted > 0 {
		d.EvalPerClaim = round(float64(d.EvalCalls)/float64(accepted), 3)
		d.TotalPerClaim = round(float64(d.TotalCalls)/float64(accepted), 2)
	}
	if evalshaCalls > 0 {
		d.EvalUsecPerCall = round(float64(evalUsec)/float64(evalshaCalls), 2)
	}
	d.BusySeconds = round(float64(busy)/1e6, 3)
	return d
}

// persistWatch records when Redis was rewriting its AOF or saving an RDB, polling INFO
// persistence every 50 ms.
type persistWatch struct {
	mu      sync.Mutex
	spans   [][2]time.Time // [start, end]; end zero while in progress
	started int
}

func watchPersistence(ctx context.Context, rdb *redis.Client) *persistWatch {
	w := &persistWatch{}
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			txt, err := rdb.Info(ctx, "persistence").Result()
			if err == nil {
				busy := strings.Contains(txt, "aof_rewrite_in_progress:1") || strings.Contains(txt, "rdb_bgsave_in_progress:1")
				now := time.Now()
				w.mu.Lock()
				open := len(w.spans) > 0 && w.spans[len(w.spans)-1][1].IsZero()
				switch {
				case busy && !open:
					w.spans = append(w.spans, [2]time.Time{now, {}})
					w.started++
				case !busy && open:
					w.spans[len(w.spans)-1][1] = now
				}
				w.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// overlaps reports whether a rewrite was in progress at some time in [from, to].
func (w *persistWatch) overlaps(from, to time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.spans {
		end := s[1]
		if end.IsZero() {
			end = time.Now()
		}
		if !s[0].After(to) && !end.Before(from) {
			return true
		}
	}
	return false
}

func (w *persistWatch) count() int {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started
}

// ---- CPU ----

type cpuSample struct {
	at      time.Time
	procs   map[string]float64 // seconds
	self    float64
	busy    float64 // machine: non-idle seconds over all cores
	ncpu    int
	hasProc bool
}

func parsePids(s string) (map[string]int, error) {
	out := map[string]int{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, pid, ok := strings.Cut(item, "=")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 {
			return nil, fmt.Errorf("-pids: %q is not name=pid", item)
		}
		out[name] = n
	}
	return out, nil
}

const clkTck = 100 // USER_HZ on Linux

func procCPU(pid int) (float64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	ut, _ := strconv.ParseFloat(f[11], 64) // field 14 utime
	st, _ := strconv.ParseFloat(f[12], 64) // field 15 stime
	return (ut + st) / clkTck, true
}

func sampleCPU(pids map[string]int) cpuSample {
	c := cpuSample{at: time.Now(), procs: map[string]float64{}}
	for name, pid := range pids {
		if v, ok := procCPU(pid); ok {
			c.procs[name] = v
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.self = tv(ru.Utime) + tv(ru.Stime)
	}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 8 {
				continue
			}
			if f[0] == "cpu" {
				c.hasProc = true
				var total, idle float64
				for j, v := range f[1:] {
					x, _ := strconv.ParseFloat(v, 64)
					if j >= 8 { // guest time is already counted in user
						break
					}
					total += x
					if j == 3 || j == 4 { // idle, iowait
						idle += x
					}
				}
				c.busy = (total - idle) / clkTck
			} else if strings.HasPrefix(f[0], "cpu") {
				c.ncpu++
			}
		}
	}
	return c
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// line is the report as "name=seconds ... loadgen=s other=s", processes by name.
func (c *CPUReport) line() string {
	var parts []string
	names := make([]string, 0, len(c.Processes))
	for k := range c.Processes {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s=%.2f", k, c.Processes[k]))
	}
	return strings.Join(append(parts, fmt.Sprintf("loadgen=%.2f", c.LoadgenS), fmt.Sprintf("other=%.2f", c.OtherS)), " ")
}

func cpuReport(pids map[string]int, a, b cpuSample) *CPUReport {
	wall := b.at.Sub(a.at).Seconds()
	r := &CPUReport{WallS: round(wall, 2), Cores: b.ncpu, Processes: map[string]float64{}, LoadgenS: round(b.self-a.self, 2)}
	listed := b.self - a.self
	for name := range pids {
		if v1, ok := b.procs[name]; ok {
			v := v1 - a.procs[name]
			r.Processes[name] = round(v, 2)
			listed += v
		}
	}
	if a.hasProc && b.hasProc {
		r.MachineS = round(b.busy-a.busy, 2)
		if b.ncpu > 0 && wall > 0 {
			r.MachinePct = round(100*(b.busy-a.busy)/(float64(b.ncpu)*wall), 1)
		}
		r.OtherS = round(max(b.busy-a.busy-listed, 0), 2)
	}
	return r
}

// ---- pprof ----

func fetchProfile(ctx context.Context, url, out string) error {
	if out == "" {
		return errors.New("-pprof-url needs -pprof-out")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ---- output ----

func envFile(r Report) string {
	var b strings.Builder
	set := func(k string, v any) { fmt.Fprintf(&b, "%s=%v\n", k, v) }
	set("LG_TEMPLATE", r.TemplateID)
	set("LG_ATTEMPTS", r.Attempts)
	set("LG_ACCEPTED", r.Accepted)
	set("LG_ERRORS", r.Errors)
	set("LG_ACCEPTED_PER_S", r.AcceptedPerS)
	set("LG_P50", r.LatencyMS.P50)
	set("LG_P90", r.LatencyMS.P90)
	set("LG_P99", r.LatencyMS.P99)
	set("LG_MAX", r.LatencyMS.Max)
	set("LG_MAX_LAG", r.MaxLagMS)
	set("LG_REDIS_REWRITES", r.RedisRewrites)
	set("LG_DISTURBED", r.DisturbedClaims)
	if u := r.UndisturbedLatencyMS; u != nil {
		set("LG_UNDISTURBED_P99", u.P99)
	} else {
		set("LG_UNDISTURBED_P99", r.LatencyMS.P99)
	}
	var refusals []string
	for k, v := range r.Refusals {
		refusals = append(refusals, k+":"+strconv.FormatInt(v, 10))
	}
	sort.Strings(refusals)
	set("LG_REFUSALS", "'"+strings.Join(refusals, " ")+"'")
	var kinds []string
	for k, v := range r.ErrorKinds {
		kinds = append(kinds, strings.ReplaceAll(k, "'", "")+":"+strconv.FormatInt(v, 10))
	}
	sort.Strings(kinds)
	set("LG_ERROR_KINDS", "'"+strings.Join(kinds, ", ")+"'")
	if r.Warmup != nil {
		set("LG_WARMUP_ACCEPTED", r.Warmup.Accepted)
	}
	if d := r.Drain; d != nil {
		set("LG_DRAIN_MS", d.MSAfterBurst)
		set("LG_DRAIN_ROWS", d.Rows)
		set("LG_DRAIN_EXPECTED", d.ExpectedRows)
		set("LG_DRAIN_TIMED_OUT", d.TimedOut)
	}
	if x := r.Redis; x != nil {
		set("LG_REDIS_EVAL", x.EvalCalls)
		set("LG_REDIS_TOTAL", x.TotalCalls)
		set("LG_REDIS_EVAL_PER_CLAIM", x.EvalPerClaim)
		set("LG_REDIS_TOTAL_PER_CLAIM", x.TotalPerClaim)
		set("LG_REDIS_EVALSHA_USEC", x.EvalUsecPerCall)
		set("LG_REDIS_INCR_PER_CLAIM", x.PerClaim["incr"])
		set("LG_REDIS_BUSY_S", x.BusySeconds)
		type kv struct {
			k string
			v float64
		}
		var top []kv
		for k, v := range x.PerClaim {
			top = append(top, kv{k, v})
		}
		sort.Slice(top, func(i, j int) bool { return top[i].v > top[j].v })
		var parts []string
		for i, t := range top {
			if i == 12 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s=%.3g", t.k, t.v))
		}
		set("LG_REDIS_BREAKDOWN", "'"+strings.Join(parts, " ")+"'")
	}
	if c := r.CPU; c != nil {
		set("LG_CPU", "'"+c.line()+"'")
		set("LG_CPU_WALL", c.WallS)
		set("LG_CPU_MACHINE_PCT", c.MachinePct)
	}
	if c := r.DrainCPU; c != nil {
		set("LG_DRAIN_CPU", "'"+c.line()+"'")
	}
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
