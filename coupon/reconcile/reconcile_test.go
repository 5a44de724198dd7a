package reconcile_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/coupon/distribution"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/coupon/reconcile"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontask"
	"coupond/ent/coupontemplatelog"
	"coupond/ent/usercoupon"
	"coupond/services"
	"coupond/store"
	"coupond/testutil/stack"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

type env struct {
	*stack.Stack
	rec *reconcile.Reconciler
}

func newEnv(t *testing.T, name string, o stack.Options) *env {
	t.Helper()
	s := stack.New(t, "reconcile", name, o)
	rec := reconcile.New(s.DB, s.Redis, reconcile.Config{ScanCount: 100000, Recheck: 50 * time.Millisecond})
	return &env{Stack: s, rec: rec}
}

// claim makes each user claim once (async: pending until persisted).
func (e *env) claim(t *testing.T, tplID int64, users ...int64) {
	t.Helper()
	for _, u := range users {
		if _, err := e.Redeemer.Redeem(e.Ctx, u, tplID, ""); err != nil {
			t.Fatalf("user %d: %v", u, err)
		}
	}
}

func (e *env) persist(t *testing.T, tplID int64) {
	t.Helper()
	if _, err := e.Persister.Drain(e.Ctx, tplID); err != nil {
		t.Fatal(err)
	}
}

func (e *env) check(t *testing.T, tplID int64) *reconcile.Report {
	t.Helper()
	rep, err := e.rec.Check(e.Ctx, stack.Merchant, tplID)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// run runs the periodic reconciliation once.
func (e *env) run(t *testing.T) reconcile.RunResult {
	t.Helper()
	res, err := e.rec.Run(e.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// records are the template's reconciliation audit rows, oldest first.
func (e *env) records(t *testing.T, tplID int64) []*ent.CouponTemplateLog {
	t.Helper()
	rows, err := e.DB.CouponTemplateLog.Query().Where(coupontemplatelog.TemplateID(tplID),
		coupontemplatelog.ActionIn(template.ActionReconcileDrift, template.ActionReconcileBalanced)).
		Order(ent.Asc(coupontemplatelog.FieldID)).All(e.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// driftGauge reads coupond_reconcile_drift{template, equation}; ok is false when the series does
// not exist.
func driftGauge(t *testing.T, tplID int64, equation string) (float64, bool) {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "coupond_reconcile_drift" {
			continue
		}
		for _, m := range f.GetMetric() {
			if label(m, "template") == strconv.FormatInt(tplID, 10) && label(m, "equation") == equation {
				return m.GetGauge().GetValue(), true
			}
		}
	}
	return 0, false
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// wantDrift checks that the query, one run's audit row and the metrics all report exactly the
// given equations (equation → imbalance size; "users" counts users off), each line mentioning its
// text.
func (e *env) wantDrift(t *testing.T, tplID int64, want map[string]float64, lines ...string) {
	t.Helper()
	rep := e.check(t, tplID)
	if rep.Balanced || len(rep.Drift) != len(lines) {
		t.Fatalf("query: balanced %v, drift %q; want %d lines like %q", rep.Balanced, rep.Drift, len(lines), lines)
	}
	for i, l := range lines {
		if !strings.Contains(rep.Drift[i], l) {
			t.Fatalf("query drift line %d = %q, want it to contain %q", i, rep.Drift[i], l)
		}
	}
	before := len(e.records(t, tplID))
	if res := e.run(t); res.Drifting != 1 || res.Recorded != 1 {
		t.Fatalf("run = %+v, want the one template drifting and recorded", res)
	}
	recs := e.records(t, tplID)
	if len(recs) != before+1 || recs[len(recs)-1].Action != template.ActionReconcileDrift {
		t.Fatalf("audit rows = %d (want %d), last %+v", len(recs), before+1, recs[len(recs)-1])
	}
	// The run may find more than the query: it also compares the counters its SCAN page found.
	got := fmt.Sprint(recs[len(recs)-1].After["drift"])
	for _, l := range lines {
		if !strings.Contains(got, l) || recs[len(recs)-1].ActorRole != template.ActorSystem {
			t.Fatalf("audit row drift = %s by %s, want %q by SYSTEM", got, recs[len(recs)-1].ActorRole, l)
		}
	}
	for _, eq := range []string{"mysql", "redis", "total", "users", "batches"} {
		v, ok := driftGauge(t, tplID, eq)
		if w, expected := want[eq]; ok != expected || v != w {
			t.Fatalf("metric %s = %v (exists %v), want %v (exists %v)", eq, v, ok, w, expected)
		}
	}
	// The same drift again is not recorded again.
	if res := e.run(t); res.Drifting != 1 || res.Recorded != 0 {
		t.Fatalf("second run = %+v, want the drift seen and not recorded again", res)
	}
}

// wantBalanced checks the query balances and a run records nothing new but a cleared drift.
func (e *env) wantBalanced(t *testing.T, tplID int64) {
	t.Helper()
	if rep := e.check(t, tplID); !rep.Balanced || len(rep.Drift) != 0 {
		t.Fatalf("want balanced, got %+v", rep)
	}
}

// sold is a template of stock 10 (limit 2) with users 1…5 holding one persisted coupon each and
// users 6, 7 one pending claim each.
func (e *env) sold(t *testing.T) *coupon.Template {
	t.Helper()
	if err := e.Redis.Del(e.Ctx, keys.ReconcileCursors()).Err(); err != nil {
		t.Fatal(err)
	}
	tpl := e.Template(t, 10, 2, nil)
	e.claim(t, tpl.ID, 1, 2, 3, 4, 5)
	e.persist(t, tpl.ID)
	e.claim(t, tpl.ID, 6, 7)
	e.wantBalanced(t, tpl.ID)
	rep := e.check(t, tpl.ID)
	if rep.TotalStock != 10 || *rep.RedisStock != 3 || rep.DBStock != 5 || rep.Issued != 5 || rep.Pending != 2 || rep.Failed != 0 {
		t.Fatalf("books = %+v", rep)
	}
	return tpl
}

func TestHonestBooksBalance(t *testing.T) {
	e := newEnv(t, "honest", stack.Options{})
	tpl := e.sold(t)
	if res := e.run(t); res.Checked != 1 || res.Drifting != 0 || res.Recorded != 0 {
		t.Fatalf("run = %+v", res)
	}
	e.persist(t, tpl.ID)
	rep := e.check(t, tpl.ID)
	if !rep.Balanced || rep.Issued != 7 || rep.Pending != 0 || *rep.RedisStock != 3 || rep.DBStock != 3 {
		t.Fatalf("after persisting: %+v", rep)
	}
	if recs := e.records(t, tpl.ID); len(recs) != 0 {
		t.Fatalf("audit rows on honest books: %d", len(recs))
	}
}

func TestRedisStockOffIsReported(t *testing.T) {
	e := newEnv(t, "redis_stock", stack.Options{})
	tpl := e.sold(t)
	e.Redis.HIncrBy(e.Ctx, keys.Template(tpl.ID), "stock", 3)
	e.wantDrift(t, tpl.ID, map[string]float64{"redis": 3}, "Redis: stock 6 + coupons 5 + pending 2 = 13, total stock 10 (3 more than the total)")
	// Put back: the drift clears, and that is recorded once.
	e.Redis.HIncrBy(e.Ctx, keys.Template(tpl.ID), "stock", -3)
	e.wantBalanced(t, tpl.ID)
	if res := e.run(t); res.Drifting != 0 || res.Recorded != 1 {
		t.Fatalf("run after repair = %+v", res)
	}
	recs := e.records(t, tpl.ID)
	if len(recs) != 2 || recs[1].Action != template.ActionReconcileBalanced || recs[1].Before["signature"] != "redis:+3;" {
		t.Fatalf("records = %+v", recs)
	}
	if _, ok := driftGauge(t, tpl.ID, "redis"); ok {
		t.Fatal("the drift series outlived the drift")
	}
	if res := e.run(t); res.Recorded != 0 {
		t.Fatalf("balanced again recorded again: %+v", res)
	}
}

func TestMissingCouponRowIsReported(t *testing.T) {
	e := newEnv(t, "row_missing", stack.Options{})
	tpl := e.sold(t)
	if _, err := e.DB.UserCoupon.Delete().Where(usercoupon.UserID(3), usercoupon.TemplateID(tpl.ID)).Exec(e.Ctx); err != nil {
		t.Fatal(err)
	}
	// The totals are template-keyed (the stock batches' ledger), so they still balance; the lost
	// row shows as its user's counter above the coupons MySQL holds, and as its stock batch
	// settled with one coupon more than carry it.
	e.wantDrift(t, tpl.ID, map[string]float64{"users": 1, "batches": 1},
		"user 3: Redis claim counter 1 ≠ coupons 0 + pending 0",
		"coupons carry it, it settled")
}

func TestExtraCouponRowIsReported(t *testing.T) {
	e := newEnv(t, "row_extra", stack.Options{})
	tpl := e.sold(t)
	err := store.WithTx(e.Ctx, e.DB, func(tx *ent.Tx) error {
		return issue.Create(tx, issue.Coupon{UserID: 2, TemplateID: tpl.ID, RedemptionID: "forged-1", ReceiveCount: 2,
			Source: usercoupon.SourceCLAIM, At: time.Now(), End: tpl.ValidEnd}).Exec(e.Ctx)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A row written outside any stock batch takes no unit from the ledger: its user's counter
	// shows it.
	e.wantDrift(t, tpl.ID, map[string]float64{"users": 1},
		"user 2: Redis claim counter 1 ≠ coupons 2 + pending 0")
}

func TestTemplateStockColumnOffIsReported(t *testing.T) {
	e := newEnv(t, "db_stock", stack.Options{})
	tpl := e.sold(t)
	if err := e.DB.CouponTemplate.UpdateOneID(tpl.ID).AddStock(-2).Exec(e.Ctx); err != nil {
		t.Fatal(err)
	}
	e.wantDrift(t, tpl.ID, map[string]float64{"mysql": 2}, "MySQL: stock 3 + coupons 5 + reserved 0 = 8, total stock 10 (2 unaccounted for)")
}

func TestClaimCounterOffIsReported(t *testing.T) {
	e := newEnv(t, "counter", stack.Options{})
	tpl := e.sold(t)
	e.Redis.HIncrBy(e.Ctx, keys.ClaimCounter(tpl.ID, 4), "n", 1)
	e.Redis.Del(e.Ctx, keys.ClaimCounter(tpl.ID, 5))
	e.wantDrift(t, tpl.ID, map[string]float64{"users": 2},
		"user 4: Redis claim counter 2 ≠ coupons 1 + pending 0",
		"user 5: Redis claim counter missing ≠ coupons 1 + pending 0")
}

func TestTotalsDisagreeIsReported(t *testing.T) {
	e := newEnv(t, "totals", stack.Options{})
	tpl := e.sold(t)
	e.Redis.HIncrBy(e.Ctx, keys.Template(tpl.ID), "total", 4)
	e.wantDrift(t, tpl.ID, map[string]float64{"total": 4, "redis": 4},
		"Redis total stock 14 ≠ MySQL total stock 10",
		"Redis: stock 3 + coupons 5 + pending 2 = 10, total stock 14 (4 unaccounted for)")
}

// An accepted claim whose outbox entry is lost: Redis took the unit and counted it for the user,
// and no outbox holds it. The user holds no coupon, so only the SCAN of claim hashes finds the
// counter.
func TestLostOutboxEntryIsReported(t *testing.T) {
	e := newEnv(t, "lost_entry", stack.Options{})
	tpl := e.sold(t)
	e.claim(t, tpl.ID, 42)
	msgs, err := e.Redis.XRange(e.Ctx, keys.Outbox(tpl.ID), "-", "+").Result()
	if err != nil || len(msgs) != 3 {
		t.Fatalf("outbox = %v, %v", msgs, err)
	}
	e.Redis.XDel(e.Ctx, keys.Outbox(tpl.ID), msgs[2].ID)
	rep := e.check(t, tpl.ID) // the query does not scan: it sees the stock only
	if len(rep.Drift) != 1 || !strings.Contains(rep.Drift[0], "Redis: stock 2 + coupons 5 + pending 2 = 9, total stock 10 (1 unaccounted for)") {
		t.Fatalf("query drift = %q", rep.Drift)
	}
	if res := e.run(t); res.Drifting != 1 || res.Recorded != 1 {
		t.Fatalf("run = %+v", res)
	}
	recs := e.records(t, tpl.ID)
	lines := fmt.Sprint(recs[len(recs)-1].After["drift"])
	if !strings.Contains(lines, "user 42: Redis claim counter 1 ≠ coupons 0 + pending 0") || !strings.Contains(lines, "1 unaccounted for") {
		t.Fatalf("recorded drift = %s", lines)
	}
	if v, ok := driftGauge(t, tpl.ID, "users"); !ok || v != 1 {
		t.Fatalf("users metric = %v, %v", v, ok)
	}
}

// Claims MySQL refuses for want of stock end FAILED with their unit given back: they count in
// failed, not in issued, and MySQL's books still balance.
func TestStockDriftFailuresLeaveMySQLBalanced(t *testing.T) {
	e := newEnv(t, "failed", stack.Options{})
	tpl := e.Template(t, 5, 1, nil)
	e.claim(t, tpl.ID, 1, 2, 3)
	// MySQL has less stock than Redis showed: the persister fails the surplus as drift.
	if err := e.DB.CouponTemplate.UpdateOneID(tpl.ID).AddStock(-3).AddTotalStock(-3).Exec(e.Ctx); err != nil {
		t.Fatal(err)
	}
	e.Redis.HIncrBy(e.Ctx, keys.Template(tpl.ID), "total", -3)
	e.Redis.HIncrBy(e.Ctx, keys.Template(tpl.ID), "stock", -3) // Redis now 2 + 3 pending of 2 total: -3
	e.persist(t, tpl.ID)
	rep := e.check(t, tpl.ID)
	if rep.Failed != 1 || rep.Issued != 2 || rep.DBStock != 0 {
		t.Fatalf("after the drift: %+v", rep)
	}
	if !rep.Balanced || rep.RedisStock != nil {
		// The persister dropped the hash after the drift: not cached, nothing to compare in Redis.
		t.Fatalf("want MySQL balanced and Redis not compared: %+v", rep)
	}
}

// Honest traffic: claims from many goroutines through the real claim path, the persister running
// as the worker does (kicker + asynq), and reconciliation runs and queries going on meanwhile:
// no run may see drift, and at the end every claim is issued and the books balance.
func TestNoDriftUnderConcurrentClaims(t *testing.T) {
	e := newEnv(t, "concurrent", stack.Options{Worker: true, Kick: true, Config: services.Config{Redeem: claim.Config{UserRate: 0}}})
	e.Redis.Del(e.Ctx, keys.ReconcileCursors())
	const stock = 3000
	tpl := e.Template(t, stock, 3, nil)
	ctx, cancel := context.WithCancel(e.Ctx)
	var wg, claimers sync.WaitGroup
	var mu sync.Mutex
	var claimed sync.Map
	for w := range 8 {
		claimers.Add(1)
		go func() {
			defer claimers.Done()
			for i := range 400 {
				u := int64(1000 + w*1000 + i%300)
				if red, err := e.Redeemer.Redeem(ctx, u, tpl.ID, ""); err == nil && red != nil {
					claimed.Store(red.ID, true)
				}
			}
		}()
	}
	done := make(chan struct{})
	var runs, queries, inFlight int
	var bad []string
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			res, err := e.rec.Run(e.Ctx)
			if err != nil {
				mu.Lock()
				bad = append(bad, err.Error())
				mu.Unlock()
				return
			}
			runs++
			if res.Drifting != 0 {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("run %d: %+v", runs, res))
				mu.Unlock()
			}
			rep, err := e.rec.Check(e.Ctx, stack.Merchant, tpl.ID)
			if err != nil {
				mu.Lock()
				bad = append(bad, err.Error())
				mu.Unlock()
				return
			}
			queries++
			if !rep.Balanced {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("query %d: %q", queries, rep.Drift))
				mu.Unlock()
			}
			// One read alone, without the re-check, with the counters of users claiming now.
			one, err := e.rec.ReadOnce(e.Ctx, tpl.ID, []int64{1000, 1001, 1100, 1240, 1739})
			if err != nil {
				mu.Lock()
				bad = append(bad, err.Error())
				mu.Unlock()
				return
			}
			if !one.Balanced {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("single read %d: %q", queries, one.Drift))
				mu.Unlock()
			}
			if one.Pending > 0 {
				inFlight++
			}
		}
	}()
	wg.Add(1)
	go func() { // single reads back to back, the likeliest to land between two stores' steps
		defer wg.Done()
		for ctx.Err() == nil {
			one, err := e.rec.ReadOnce(e.Ctx, tpl.ID, []int64{1000, 2001, 3002})
			if err == nil && !one.Balanced {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("tight single read: %q", one.Drift))
				mu.Unlock()
			}
		}
	}()
	claimers.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rep := e.check(t, tpl.ID)
		if rep.Pending == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	<-done
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("drift on an honest run (%d runs, %d queries): %v", runs, queries, bad)
	}
	if runs < 3 || inFlight == 0 {
		t.Fatalf("%d reconciliation runs, %d reads with claims in flight: too little overlap", runs, inFlight)
	}
	rep := e.check(t, tpl.ID)
	n := 0
	claimed.Range(func(_, _ any) bool { n++; return true })
	if !rep.Balanced || rep.Pending != 0 || rep.Issued != n || rep.DBStock != stock-n {
		t.Fatalf("final books %+v; %d claims accepted", rep, n)
	}
	if recs := e.records(t, tpl.ID); len(recs) != 0 {
		t.Fatalf("%d reconciliation audit rows on an honest run", len(recs))
	}
	t.Logf("%d claims, %d runs, %d queries during them, %d single reads with claims in flight", n, runs, queries, inFlight)
}

func TestCheckIsForTheTemplatesShopOrThePlatform(t *testing.T) {
	e := newEnv(t, "roles", stack.Options{})
	tpl := e.Template(t, 10, 1, nil)
	if _, err := e.rec.Check(e.Ctx, coupon.Actor{UserID: 9, Role: coupon.RoleMerchant, Shop: 2002}, tpl.ID); err != coupon.ErrNotFound {
		t.Fatalf("another shop: %v, want ErrNotFound", err)
	}
	if _, err := e.rec.Check(e.Ctx, coupon.Actor{UserID: 9, Role: coupon.RolePlatform}, tpl.ID); err != nil {
		t.Fatalf("platform: %v", err)
	}
	if _, err := e.rec.Check(e.Ctx, stack.Merchant, tpl.ID+1); err != coupon.ErrNotFound {
		t.Fatalf("unknown id: %v", err)
	}
}

// Once a template has ended its counters mean nothing (they expire at its end): only the stock
// equations are checked.
func TestEndedTemplateChecksNoCounters(t *testing.T) {
	e := newEnv(t, "ended", stack.Options{})
	tpl := e.sold(t)
	e.persist(t, tpl.ID)
	if _, err := e.Templates.Terminate(e.Ctx, stack.Merchant, tpl.ID); err != nil {
		t.Fatal(err)
	}
	e.Redis.Del(e.Ctx, keys.ClaimCounter(tpl.ID, 1), keys.ClaimCounter(tpl.ID, 2))
	if rep := e.check(t, tpl.ID); !rep.Balanced || rep.Issued != 7 {
		t.Fatalf("ended template: %+v", rep)
	}
	if res := e.run(t); res.Checked != 0 {
		t.Fatalf("the periodic run checked an ended template: %+v", res)
	}
}

// TestBatchBetweenTheReadsBalances persists a batch wholly between a read's MySQL view and its
// Redis snapshot (T1, T2, T3 and the outbox's acknowledgement or the journal's deletion: in
// neither read), and another batch of claims made after the snapshot: the first counts once (as
// meanwhile), the second not at all, for the template and for each user's counter; a batch of
// claims on one stock hash and on three stock shards (an epoch each), and a distribution batch.
func TestBatchBetweenTheReadsBalances(t *testing.T) {
	for _, c := range []struct {
		name         string
		shards       int
		distribution bool
	}{{"claims", 1, false}, {"claims on 3 stock shards", 3, false}, {"distribution", 1, true}} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, fmt.Sprintf("between%d%v", c.shards, c.distribution), stack.Options{})
			tpl := e.Template(t, 10, 2, func(in *template.CreateInput) { in.StockShards = &c.shards })
			e.claim(t, tpl.ID, 1, 2)
			e.persist(t, tpl.ID)
			between := func() { e.persist(t, tpl.ID) }
			if c.distribution { // users 3 and 4 listed in a task that runs between the reads
				task, err := e.Distribution.Create(e.Ctx, stack.Merchant, distribution.CreateInput{TemplateID: tpl.ID, Name: "push",
					SendType: coupontask.SendTypeIMMEDIATE, FileName: "u.csv", File: strings.NewReader("userId\n3\n4\n")})
				if err != nil {
					t.Fatal(err)
				}
				between = func() {
					if err := e.Distribution.Run(e.Ctx, task.ID); err != nil {
						t.Error(err)
					}
				}
			} else {
				e.claim(t, tpl.ID, 3, 4)
			}
			users := []int64{1, 2, 3, 4, 5, 6}
			e.rec.Between(between, func() {
				e.claim(t, tpl.ID, 5, 6)
				e.persist(t, tpl.ID)
			})
			rep, err := e.rec.ReadOnce(e.Ctx, tpl.ID, users)
			e.rec.Between(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Balanced || rep.Issued != 2 || rep.Meanwhile != 2 || rep.Pending != 0 || rep.DBStock != 8 || *rep.RedisStock != 6 {
				t.Fatalf("a batch between the reads: %+v, want balanced, issued 2, meanwhile 2, pending 0, stocks 8 and 6", rep)
			}
			// The batch persisted after the snapshot counts in the next read as issued; nothing meanwhile.
			rep, err = e.rec.ReadOnce(e.Ctx, tpl.ID, users)
			if err != nil || !rep.Balanced || rep.Issued != 6 || rep.Meanwhile != 0 || rep.Pending != 0 {
				t.Fatalf("the next read: %+v, %v", rep, err)
			}
		})
	}
}

// TestShardsWithoutACutSkipRedis: on a template with stock shards, a borrow between every two
// shard scripts of every try leaves no consistent cut; the read skips Redis's equations (the
// stock and the users' counters, which it did not read) instead of comparing or failing, and
// MySQL's books are still checked.
func TestShardsWithoutACutSkipRedis(t *testing.T) {
	e := newEnv(t, "nocut", stack.Options{})
	shards := 3
	tpl := e.Template(t, 30, 2, func(in *template.CreateInput) { in.StockShards = &shards })
	e.claim(t, tpl.ID, 1, 2, 3)
	e.persist(t, tpl.ID)
	borrower := 0
	e.rec.BetweenShardReads(func() {
		borrower = (borrower + 1) % shards
		if _, err := e.Cache.Borrow(e.Ctx, tpl.ID, borrower, shards); err != nil {
			t.Error(err)
		}
	})
	rep, err := e.rec.ReadOnce(e.Ctx, tpl.ID, []int64{1, 2, 3})
	e.rec.BetweenShardReads(nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped == "" || !rep.Balanced || rep.Issued != 3 || rep.DBStock != 27 {
		t.Fatalf("no consistent cut: %+v, want Redis skipped, MySQL balanced with 3 issued", rep)
	}
}
