package coupon

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/ent"
	"coupond/ent/coupontemplatelog"
	"coupond/ent/usercoupon"
	"coupond/testutil"

	"github.com/hibiken/asynq"
	promtest "github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
)

// asynqScheduler enqueues real asynq tasks (package jobs, which owns the task types, imports this
// package, so these tests name their own); the tests drain outboxes by calling the persister.
type asynqScheduler struct{ c *asynq.Client }

func (s asynqScheduler) PersistOutbox(ctx context.Context, id int64) error {
	_, err := s.c.EnqueueContext(ctx, asynq.NewTask("test:persist", []byte(strconv.FormatInt(id, 10))))
	return err
}

func (s asynqScheduler) ExpireBucket(ctx context.Context, id int64, minute time.Time) error {
	_, err := s.c.EnqueueContext(ctx, asynq.NewTask("test:expire", []byte(strconv.FormatInt(id, 10))), asynq.ProcessAt(minute.Add(time.Minute)))
	return err
}

type redeemEnv struct {
	ctx       context.Context
	db        *ent.Client
	rdb       *redis.Client
	admin     *TemplateAdmin
	cache     *TemplateCache
	redeemer  *Redeemer
	persister *Persister
	expirer   *Expirer
	sched     asynqScheduler
}

func newRedeemEnv(t *testing.T, name string, cfg RedeemConfig) *redeemEnv {
	t.Helper()
	db, _, _ := testutil.MySQL(t, "coupon_redeem_"+name)
	rdb := testutil.Redis(t, testutil.RedisDBCoupon)
	client := asynq.NewClient(asynq.RedisClientOpt{Addr: testutil.RedisAddr(), DB: testutil.RedisDBCoupon})
	t.Cleanup(func() { client.Close() })
	e := &redeemEnv{ctx: context.Background(), db: db, rdb: rdb, sched: asynqScheduler{client}}
	e.cache = NewTemplateCache(rdb, db, CacheOptions{})
	e.admin = NewTemplateAdmin(db, rdb, e.cache)
	e.expirer = NewExpirer(db, rdb)
	if cfg.TemplateRate == 0 {
		cfg.TemplateRate = 1e9
	}
	e.redeemer = NewRedeemer(db, rdb, e.cache, e.expirer, e.sched, cfg)
	e.persister = NewPersister(db, rdb, e.expirer, e.sched, PersistConfig{BatchSize: 7, ClaimIdle: time.Millisecond})
	return e
}

func (e *redeemEnv) template(t *testing.T, stock, limit int, mutate func(*CreateTemplateInput)) *Template {
	t.Helper()
	return createTemplate(t, e.admin, merchantA, func(in *CreateTemplateInput) {
		in.Stock, in.LimitPerPerson = stock, limit
		if mutate != nil {
			mutate(in)
		}
	})
}

func (e *redeemEnv) dbStock(t *testing.T, id int64) int {
	t.Helper()
	row, err := e.db.CouponTemplate.Get(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return row.Stock
}

func (e *redeemEnv) redisStock(t *testing.T, id int64) int {
	t.Helper()
	n, err := e.rdb.HGet(e.ctx, TemplateKey(id), "stock").Int()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (e *redeemEnv) coupons(t *testing.T, id int64) []*ent.UserCoupon {
	t.Helper()
	all, err := e.db.UserCoupon.Query().Where(usercoupon.TemplateID(id)).All(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

func codeOf(err error) Code {
	if errs := AsErrors(err); len(errs) > 0 {
		return errs[0].Code
	}
	return ""
}

func TestRedeemRefusalsDeductNothing(t *testing.T) {
	e := newRedeemEnv(t, "refusals", RedeemConfig{UserRate: 2, UserWindow: time.Minute})
	open := e.template(t, 5, 5, nil)
	later := e.template(t, 5, 5, func(in *CreateTemplateInput) {
		in.ValidStartTime, in.ValidEndTime = time.Now().Add(time.Hour), time.Now().Add(2*time.Hour)
	})
	ended := e.template(t, 5, 5, nil)
	if _, err := e.admin.Terminate(e.ctx, merchantA, ended.ID); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		tpl  int64
		want Code
	}{
		{"unknown template", 424242, CodeNotFound},
		{"not started", later.ID, CodeNotStarted},
		{"terminated", ended.ID, CodeEnded},
	}
	for _, c := range cases {
		if _, err := e.redeemer.Redeem(e.ctx, 1, c.tpl, ""); codeOf(err) != c.want {
			t.Errorf("%s: err = %v, want %s", c.name, err, c.want)
		}
	}
	// The user rate limit lives in the script: the third attempt within the window is refused.
	for i := range 3 {
		_, err := e.redeemer.Redeem(e.ctx, 7, open.ID, "")
		if i < 2 && err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
		if i == 2 && codeOf(err) != CodeRateLimited {
			t.Fatalf("third attempt: err = %v, want RATE_LIMITED", err)
		}
	}
	if got := e.redisStock(t, open.ID); got != 3 {
		t.Fatalf("stock after 2 claims and a refusal = %d, want 3", got)
	}
	for _, id := range []int64{later.ID, ended.ID} {
		if n, _ := e.rdb.XLen(e.ctx, OutboxKey(id)).Result(); n != 0 || e.redisStock(t, id) != 5 {
			t.Fatalf("a refused claim deducted something from template %d", id)
		}
	}

	// The per-template token bucket (in process) refuses before the script runs.
	hot := newRedeemEnv(t, "bucket", RedeemConfig{TemplateRate: 1})
	tpl := hot.template(t, 50, 50, nil)
	var limited int
	for range 5 {
		if _, err := hot.redeemer.Redeem(hot.ctx, 9, tpl.ID, ""); codeOf(err) == CodeRateLimited {
			limited++
		}
	}
	if limited != 4 || hot.redisStock(t, tpl.ID) != 49 {
		t.Fatalf("token bucket: %d limited, stock %d; want 4 and 49", limited, hot.redisStock(t, tpl.ID))
	}
	// A named hot template gets its own, higher rate.
	hotOne := hot.template(t, 50, 50, nil)
	r := NewRedeemer(hot.db, hot.rdb, hot.cache, hot.expirer, hot.sched,
		RedeemConfig{TemplateRate: 1, HotTemplateRates: map[int64]float64{hotOne.ID: 1000}})
	for i := range 5 {
		if _, err := r.Redeem(hot.ctx, int64(100+i), hotOne.ID, ""); err != nil {
			t.Fatalf("hot template claim %d: %v", i, err)
		}
	}
}

func TestSameRequestIDGivesOneClaimAndTheSameAnswer(t *testing.T) {
	for _, mode := range []RedeemMode{RedeemAsync, RedeemSync} {
		t.Run(string(mode), func(t *testing.T) {
			e := newRedeemEnv(t, "reqid_"+string(mode), RedeemConfig{Mode: mode})
			tpl := e.template(t, 100, 5, nil)
			answers := make([]string, 20)
			var wg sync.WaitGroup
			for i := range answers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					red, err := e.redeemer.Redeem(e.ctx, 5, tpl.ID, "req-1")
					if err != nil {
						answers[i] = "error: " + err.Error()
						return
					}
					answers[i] = red.ID
				}()
			}
			wg.Wait()
			for _, a := range answers {
				if a != answers[0] || a == "" {
					t.Fatalf("answers differ: %q vs %q", a, answers[0])
				}
			}
			if got := e.redisStock(t, tpl.ID); got != 99 {
				t.Fatalf("stock = %d, want 99 (one claim)", got)
			}
			if _, err := e.persister.Drain(e.ctx, tpl.ID); err != nil {
				t.Fatal(err)
			}
			if n := len(e.coupons(t, tpl.ID)); n != 1 {
				t.Fatalf("%d coupons, want 1", n)
			}
		})
	}
}

// claimAll makes each user claim once and returns the accepted redemption ids.
func (e *redeemEnv) claimAll(t *testing.T, tplID int64, users ...int64) []string {
	t.Helper()
	var rids []string
	for _, u := range users {
		red, err := e.redeemer.Redeem(e.ctx, u, tplID, "")
		if err != nil {
			t.Fatalf("user %d: %v", u, err)
		}
		rids = append(rids, red.ID)
	}
	return rids
}

func (e *redeemEnv) checkPersistedOnce(t *testing.T, tpl *Template, users []int64, rids []string) {
	t.Helper()
	coupons := e.coupons(t, tpl.ID)
	if len(coupons) != len(rids) {
		t.Fatalf("%d coupons, want %d", len(coupons), len(rids))
	}
	if got := e.dbStock(t, tpl.ID); got != tpl.Stock-len(rids) {
		t.Fatalf("DB stock = %d, want %d", got, tpl.Stock-len(rids))
	}
	for i, rid := range rids {
		red, err := e.redeemer.Redemption(e.ctx, users[i], rid)
		if err != nil || red.Status != RedemptionIssued || red.Coupon.UserID != users[i] {
			t.Fatalf("redemption %s = %+v, %v; want ISSUED for user %d", rid, red, err, users[i])
		}
		member := bagMember(tpl.ID, red.Coupon.ID)
		if _, err := e.rdb.ZScore(e.ctx, CardBagKey(users[i]), member).Result(); err != nil {
			t.Fatalf("card bag of user %d lacks %s: %v", users[i], member, err)
		}
	}
	if n, _ := e.rdb.XLen(e.ctx, OutboxKey(tpl.ID)).Result(); n != 0 {
		t.Fatalf("outbox still holds %d entries", n)
	}
	pending, err := e.rdb.XPending(e.ctx, OutboxKey(tpl.ID), outboxGroup).Result()
	if err != nil || pending.Count != 0 {
		t.Fatalf("pending entries = %+v, %v", pending, err)
	}
}

func TestPersisterCrashBeforeCommitIsReclaimed(t *testing.T) {
	e := newRedeemEnv(t, "crash_before", RedeemConfig{})
	tpl := e.template(t, 100, 1, nil)
	users := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	rids := e.claimAll(t, tpl.ID, users...)
	// A persister reads the claims and dies before its transaction: they stay pending under it.
	if err := e.rdb.XGroupCreateMkStream(e.ctx, OutboxKey(tpl.ID), outboxGroup, "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.XReadGroup(e.ctx, &redis.XReadGroupArgs{Group: outboxGroup, Consumer: "crashed",
		Streams: []string{OutboxKey(tpl.ID), ">"}, Count: 100, Block: -1}).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // longer than ClaimIdle: the crashed persister's claims are up for grabs
	n, err := e.persister.Drain(e.ctx, tpl.ID)
	if err != nil || n != len(rids) {
		t.Fatalf("drain = %d, %v; want %d reclaimed", n, err, len(rids))
	}
	e.checkPersistedOnce(t, tpl, users, rids)
}

func TestPersisterCrashAfterCommitBeforeAckPersistsOnce(t *testing.T) {
	e := newRedeemEnv(t, "crash_after", RedeemConfig{})
	tpl := e.template(t, 100, 1, nil)
	users := []int64{11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}
	rids := e.claimAll(t, tpl.ID, users...)
	// A persister reads the claims, commits them, and dies before card bags and XACK.
	if err := e.rdb.XGroupCreateMkStream(e.ctx, OutboxKey(tpl.ID), outboxGroup, "0").Err(); err != nil {
		t.Fatal(err)
	}
	streams, err := e.rdb.XReadGroup(e.ctx, &redis.XReadGroupArgs{Group: outboxGroup, Consumer: "crashed",
		Streams: []string{OutboxKey(tpl.ID), ">"}, Count: 100, Block: -1}).Result()
	if err != nil {
		t.Fatal(err)
	}
	var claims []claim
	for _, m := range streams[0].Messages {
		c, err := parseClaim(m)
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, c)
	}
	if _, err := e.persister.commitBatch(e.ctx, tpl.ID, claims); err != nil {
		t.Fatal(err)
	}
	if got := len(e.coupons(t, tpl.ID)); got != len(rids) {
		t.Fatalf("after the crashed commit: %d coupons", got)
	}
	// The restarted persister takes the pending entries over and replays them.
	time.Sleep(5 * time.Millisecond)
	if _, err := e.persister.Drain(e.ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	e.checkPersistedOnce(t, tpl, users, rids)
	// Entries delivered twice (a second XADD of the same claims) are also recognised.
	for _, c := range claims[:3] {
		e.rdb.XAdd(e.ctx, &redis.XAddArgs{Stream: OutboxKey(tpl.ID), Values: map[string]any{
			"rid": c.redemptionID, "user": c.userID, "rc": c.receiveCount, "ts": c.at.UnixMilli()}})
	}
	if _, err := e.persister.Drain(e.ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	e.checkPersistedOnce(t, tpl, users, rids)
}

func TestDriftFailsTheSurplusAndGivesCountersBack(t *testing.T) {
	e := newRedeemEnv(t, "drift", RedeemConfig{})
	tpl := e.template(t, 10, 1, nil)
	users := []int64{31, 32, 33, 34, 35, 36, 37, 38, 39, 40}
	driftBefore, persistedBefore := promtest.ToFloat64(driftTotal), promtest.ToFloat64(persistedTotal)
	okBefore := promtest.ToFloat64(claimsTotal.WithLabelValues("OK"))
	rids := e.claimAll(t, tpl.ID, users...)
	// The database lost 4 units somewhere (manual edit, another writer): only 6 remain.
	if err := e.db.CouponTemplate.UpdateOneID(tpl.ID).SetStock(6).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.persister.Drain(e.ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if got := e.dbStock(t, tpl.ID); got != 0 {
		t.Fatalf("DB stock = %d, want 0", got)
	}
	var issued, failed int
	for i, rid := range rids {
		red, err := e.redeemer.Redemption(e.ctx, users[i], rid)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := e.rdb.HGet(e.ctx, ClaimCounterKey(tpl.ID, users[i]), "n").Int()
		switch red.Status {
		case RedemptionIssued:
			issued++
			if n != 1 {
				t.Fatalf("issued user %d counter = %d, want 1", users[i], n)
			}
		case RedemptionFailed:
			failed++
			if red.FailureReason == nil || *red.FailureReason != ReasonStockDrift || n != 0 {
				t.Fatalf("failed redemption %+v, counter %d; want the drift reason and the counter given back", red, n)
			}
		default:
			t.Fatalf("redemption %s is %s", rid, red.Status)
		}
	}
	if issued != 6 || failed != 4 || len(e.coupons(t, tpl.ID)) != 6 {
		t.Fatalf("issued %d, failed %d; want 6 and 4", issued, failed)
	}
	if d, p, ok := promtest.ToFloat64(driftTotal)-driftBefore, promtest.ToFloat64(persistedTotal)-persistedBefore,
		promtest.ToFloat64(claimsTotal.WithLabelValues("OK"))-okBefore; d != 4 || p != 6 || ok != 10 {
		t.Fatalf("metrics: drift +%v, persisted +%v, claims OK +%v; want 4, 6, 10", d, p, ok)
	}
	logs, err := e.db.CouponTemplateLog.Query().Where(coupontemplatelog.TemplateID(tpl.ID), coupontemplatelog.Action(ActionStockDrift)).All(e.ctx)
	var recorded float64
	for _, l := range logs {
		recorded += l.After["failedClaims"].(float64)
	}
	if err != nil || recorded != 4 {
		t.Fatalf("drift records = %+v, %v; want 4 failed claims recorded", logs, err)
	}
	// A failed user may claim again (counter given back), and is refused only by stock.
	if _, err := e.redeemer.Redeem(e.ctx, users[9], tpl.ID, ""); codeOf(err) != CodeOutOfStock {
		t.Fatalf("retry after drift: %v, want OUT_OF_STOCK (Redis has no stock either)", err)
	}
}

func TestRedemptionIsTheOwnersOnly(t *testing.T) {
	e := newRedeemEnv(t, "owner", RedeemConfig{})
	tpl := e.template(t, 10, 1, nil)
	red, err := e.redeemer.Redeem(e.ctx, 50, tpl.ID, "")
	if err != nil || red.Status != RedemptionPending {
		t.Fatalf("redeem = %+v, %v", red, err)
	}
	if got, err := e.redeemer.Redemption(e.ctx, 50, red.ID); err != nil || got.Status != RedemptionPending {
		t.Fatalf("own pending redemption = %+v, %v", got, err)
	}
	for _, probe := range []struct {
		user int64
		id   string
	}{{51, red.ID}, {50, "garbage"}, {50, strconv.FormatInt(tpl.ID, 10) + "-1"}} {
		if _, err := e.redeemer.Redemption(e.ctx, probe.user, probe.id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("user %d reading %q: %v, want NOT_FOUND", probe.user, probe.id, err)
		}
	}
	if _, err := e.persister.Drain(e.ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.redeemer.Redemption(e.ctx, 51, red.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another user sees an issued redemption: %v", err)
	}
}

func TestCacheRebuildSubtractsUnpersistedClaims(t *testing.T) {
	e := newRedeemEnv(t, "rebuild", RedeemConfig{})
	tpl := e.template(t, 10, 1, nil)
	e.claimAll(t, tpl.ID, 61, 62, 63)
	// The hash is evicted while 3 claims wait in the outbox: a rebuild from the row (stock 10)
	// must not hand those 3 units out again (D-38).
	if err := e.cache.Invalidate(e.ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.redeemer.Redeem(e.ctx, 64, tpl.ID, ""); err != nil {
		t.Fatal(err)
	}
	if got := e.redisStock(t, tpl.ID); got != 6 {
		t.Fatalf("stock after rebuild and one more claim = %d, want 6", got)
	}
}

func TestValidityHoursCouponExpiresAfterItsBucket(t *testing.T) {
	e := newRedeemEnv(t, "validity", RedeemConfig{})
	tpl := e.template(t, 10, 1, func(in *CreateTemplateInput) {
		in.ValidEndTime = time.Now().Add(90 * 24 * time.Hour)
		in.ValidityHours = num(1)
	})
	red, err := e.redeemer.Redeem(e.ctx, 70, tpl.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.persister.Drain(e.ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	got, err := e.redeemer.Redemption(e.ctx, 70, red.ID)
	if err != nil || got.Status != RedemptionIssued {
		t.Fatalf("redemption = %+v, %v", got, err)
	}
	uc := got.Coupon
	if d := uc.ValidEndTime.Sub(uc.ValidStartTime); d != time.Hour {
		t.Fatalf("coupon valid for %s, want 1h (validityHours), not until the template's end", d)
	}
	// The persister put the coupon in the bucket of its end minute and asked for that bucket's
	// task; run the bucket with a clock past the end.
	bucket := BucketMinute(uc.ValidEndTime)
	if ok, _ := e.rdb.SIsMember(e.ctx, ExpiryBucketKey(tpl.ID, bucket.Unix()), bucketMember(70, uc.ID)).Result(); !ok {
		t.Fatal("the coupon is not in its expiry bucket")
	}
	e.expirer.now = func() time.Time { return time.Now().Add(61 * time.Minute) }
	if n, err := e.expirer.ExpireBucket(e.ctx, tpl.ID, bucket); err != nil || n != 1 {
		t.Fatalf("expire bucket = %d, %v; want 1", n, err)
	}
	row, _ := e.db.UserCoupon.Get(e.ctx, uc.ID)
	if row.Status != usercoupon.StatusEXPIRED {
		t.Fatalf("status = %s, want EXPIRED", row.Status)
	}
	if n, _ := e.rdb.ZCard(e.ctx, CardBagKey(70)).Result(); n != 0 {
		t.Fatalf("card bag still holds %d entries", n)
	}
}

func TestExpiryBucketIsQueuedOncePerProcess(t *testing.T) {
	e := newRedeemEnv(t, "bucket_once", RedeemConfig{})
	b := newBucketScheduler(e.sched)
	minute := time.Now().Add(48 * time.Hour).Truncate(time.Minute)
	for _, m := range []time.Time{minute, minute, minute, minute.Add(time.Minute)} {
		if err := b.schedule(e.ctx, 42, m); err != nil {
			t.Fatal(err)
		}
	}
	insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: testutil.RedisAddr(), DB: testutil.RedisDBCoupon})
	defer insp.Close()
	tasks, err := insp.ListScheduledTasks("default")
	if err != nil || len(tasks) != 2 {
		t.Fatalf("scheduled tasks = %d, %v; want 2 (one per bucket)", len(tasks), err)
	}
}

// TestAdministrationDuringAFlashSale: stock increases and a termination land while claims fire.
// Every unit is accounted for (accepted + remaining = stock + increases, in Redis and, once the
// outbox is drained, in MySQL), and no claim that starts after Terminate returned is accepted.
func TestAdministrationDuringAFlashSale(t *testing.T) {
	e := newRedeemEnv(t, "admin_during_sale", RedeemConfig{})
	tpl := e.template(t, 300, 1, nil)
	var accepted, afterTerminate atomic.Int64
	var terminated atomic.Bool
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				startedAfter := terminated.Load()
				_, err := e.redeemer.Redeem(e.ctx, int64(w*1000+i), tpl.ID, "")
				switch {
				case err == nil:
					accepted.Add(1)
					if startedAfter {
						afterTerminate.Add(1)
					}
				case codeOf(err) != CodeOutOfStock && codeOf(err) != CodeEnded:
					t.Errorf("claim: %v", err)
				}
			}
		}()
	}
	const increases, amount = 10, 20
	for range increases {
		if _, err := e.admin.IncreaseStock(e.ctx, merchantA, tpl.ID, amount); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if _, err := e.admin.Terminate(e.ctx, merchantA, tpl.ID); err != nil {
		t.Fatal(err)
	}
	terminated.Store(true)
	wg.Wait()
	if n := afterTerminate.Load(); n != 0 {
		t.Fatalf("%d claims started after Terminate returned were accepted", n)
	}
	total := 300 + increases*amount
	if got := int(accepted.Load()) + e.redisStock(t, tpl.ID); got != total {
		t.Fatalf("accepted %d + Redis stock %d = %d, want %d", accepted.Load(), e.redisStock(t, tpl.ID), got, total)
	}
	if _, err := e.persister.Drain(e.ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if rows, stock := len(e.coupons(t, tpl.ID)), e.dbStock(t, tpl.ID); rows != int(accepted.Load()) || rows+stock != total {
		t.Fatalf("MySQL: %d coupons + stock %d; want %d coupons and %d in all", rows, stock, accepted.Load(), total)
	}
}

func TestDrainStopsAfterMaxRun(t *testing.T) {
	e := newRedeemEnv(t, "max_run", RedeemConfig{})
	tpl := e.template(t, 100, 1, nil)
	users := make([]int64, 20)
	for i := range users {
		users[i] = int64(200 + i)
	}
	rids := e.claimAll(t, tpl.ID, users...)
	short := NewPersister(e.db, e.rdb, e.expirer, e.sched, PersistConfig{BatchSize: 7, MaxRun: time.Nanosecond})
	if n, err := short.Drain(e.ctx, tpl.ID); err != nil || n != 7 {
		t.Fatalf("bounded drain = %d, %v; want one batch of 7", n, err)
	}
	if _, err := e.persister.Drain(e.ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	e.checkPersistedOnce(t, tpl, users, rids)
}
