package claim_test

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/coupon/expiry"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/jobs"
	"coupond/services"
	"coupond/testutil"
	"coupond/testutil/stack"

	"github.com/hibiken/asynq"
)

type redeemEnv struct {
	*stack.Stack
	redeemer  *claim.Redeemer
	persister *claim.Persister
}

// newRedeemEnv is the claim path on real stores; the tests drain outboxes by calling the persister
// (small batches, claims idle 1 ms taken over at once).
func newRedeemEnv(t *testing.T, name string, cfg claim.Config) *redeemEnv {
	t.Helper()
	s := stack.New(t, "claim", name, stack.Options{Config: services.Config{
		Redeem: cfg, Persist: claim.PersistConfig{BatchSize: 7, ClaimIdle: time.Millisecond},
	}})
	return &redeemEnv{Stack: s, redeemer: s.Redeemer, persister: s.Persister}
}

func (e *redeemEnv) dbStock(t *testing.T, id int64) int {
	t.Helper()
	row, err := e.DB.CouponTemplate.Get(e.Ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return row.Stock
}

func (e *redeemEnv) redisStock(t *testing.T, id int64) int {
	t.Helper()
	n, err := e.Redis.HGet(e.Ctx, keys.Template(id), "stock").Int()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (e *redeemEnv) coupons(t *testing.T, id int64) []*ent.UserCoupon {
	t.Helper()
	all, err := e.DB.UserCoupon.Query().Where(usercoupon.TemplateID(id)).All(e.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

func codeOf(err error) coupon.Code {
	if errs := coupon.AsErrors(err); len(errs) > 0 {
		return errs[0].Code
	}
	return ""
}

func TestRedeemRefusalsDeductNothing(t *testing.T) {
	e := newRedeemEnv(t, "refusals", claim.Config{UserRate: 2, UserWindow: time.Minute})
	open := e.Template(t, 5, 5, nil)
	later := e.Template(t, 5, 5, func(in *template.CreateInput) {
		in.ValidStartTime, in.ValidEndTime = time.Now().Add(time.Hour), time.Now().Add(2*time.Hour)
	})
	ended := e.Template(t, 5, 5, nil)
	if _, err := e.Templates.Terminate(e.Ctx, stack.Merchant, ended.ID); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		tpl  int64
		want coupon.Code
	}{
		{"unknown template", 424242, coupon.CodeNotFound},
		{"not started", later.ID, coupon.CodeNotStarted},
		{"terminated", ended.ID, coupon.CodeEnded},
	}
	for _, c := range cases {
		if _, err := e.redeemer.Redeem(e.Ctx, 1, c.tpl, ""); codeOf(err) != c.want {
			t.Errorf("%s: err = %v, want %s", c.name, err, c.want)
		}
	}
	// The user rate limit lives in the script: the third attempt within the window is refused.
	for i := range 3 {
		_, err := e.redeemer.Redeem(e.Ctx, 7, open.ID, "")
		if i < 2 && err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
		if i == 2 && codeOf(err) != coupon.CodeRateLimited {
			t.Fatalf("third attempt: err = %v, want RATE_LIMITED", err)
		}
	}
	if got := e.redisStock(t, open.ID); got != 3 {
		t.Fatalf("stock after 2 claims and a refusal = %d, want 3", got)
	}
	for _, id := range []int64{later.ID, ended.ID} {
		if n, _ := e.Redis.XLen(e.Ctx, keys.Outbox(id)).Result(); n != 0 || e.redisStock(t, id) != 5 {
			t.Fatalf("a refused claim deducted something from template %d", id)
		}
	}

	// The per-template token bucket (in process) refuses before the script runs.
	hot := newRedeemEnv(t, "bucket", claim.Config{TemplateRate: 1})
	tpl := hot.Template(t, 50, 50, nil)
	var limited int
	for range 5 {
		if _, err := hot.redeemer.Redeem(hot.Ctx, 9, tpl.ID, ""); codeOf(err) == coupon.CodeRateLimited {
			limited++
		}
	}
	if limited != 4 || hot.redisStock(t, tpl.ID) != 49 {
		t.Fatalf("token bucket: %d limited, stock %d; want 4 and 49", limited, hot.redisStock(t, tpl.ID))
	}
	// A named hot template gets its own, higher rate.
	hotOne := hot.Template(t, 50, 50, nil)
	r := claim.NewRedeemer(hot.DB, hot.Redis, hot.Cache, hot.Persister, hot.Queue,
		claim.Config{TemplateRate: 1, HotTemplateRates: map[int64]float64{hotOne.ID: 1000}})
	for i := range 5 {
		if _, err := r.Redeem(hot.Ctx, int64(100+i), hotOne.ID, ""); err != nil {
			t.Fatalf("hot template claim %d: %v", i, err)
		}
	}
}

func TestSameRequestIDGivesOneClaimAndTheSameAnswer(t *testing.T) {
	for _, mode := range []claim.Mode{claim.ModeAsync, claim.ModeSync} {
		t.Run(string(mode), func(t *testing.T) {
			e := newRedeemEnv(t, "reqid_"+string(mode), claim.Config{Mode: mode})
			tpl := e.Template(t, 100, 5, nil)
			answers := make([]string, 20)
			var wg sync.WaitGroup
			for i := range answers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					red, err := e.redeemer.Redeem(e.Ctx, 5, tpl.ID, "req-1")
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
			if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
				t.Fatal(err)
			}
			if n := len(e.coupons(t, tpl.ID)); n != 1 {
				t.Fatalf("%d coupons, want 1", n)
			}
		})
	}
}

func TestRedemptionIsTheOwnersOnly(t *testing.T) {
	e := newRedeemEnv(t, "owner", claim.Config{})
	tpl := e.Template(t, 10, 1, nil)
	red, err := e.redeemer.Redeem(e.Ctx, 50, tpl.ID, "")
	if err != nil || red.Status != claim.RedemptionPending {
		t.Fatalf("redeem = %+v, %v", red, err)
	}
	if got, err := e.redeemer.Redemption(e.Ctx, 50, red.ID); err != nil || got.Status != claim.RedemptionPending {
		t.Fatalf("own pending redemption = %+v, %v", got, err)
	}
	for _, probe := range []struct {
		user int64
		id   string
	}{{51, red.ID}, {50, "garbage"}, {50, strconv.FormatInt(tpl.ID, 10) + "-1"}} {
		if _, err := e.redeemer.Redemption(e.Ctx, probe.user, probe.id); !errors.Is(err, coupon.ErrNotFound) {
			t.Fatalf("user %d reading %q: %v, want NOT_FOUND", probe.user, probe.id, err)
		}
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.redeemer.Redemption(e.Ctx, 51, red.ID); !errors.Is(err, coupon.ErrNotFound) {
		t.Fatalf("another user sees an issued redemption: %v", err)
	}
}

func TestCacheRebuildSubtractsUnpersistedClaims(t *testing.T) {
	e := newRedeemEnv(t, "rebuild", claim.Config{})
	tpl := e.Template(t, 10, 1, nil)
	e.claimAll(t, tpl.ID, 61, 62, 63)
	// The hash is evicted while 3 claims wait in the outbox: a rebuild from the row (stock 10)
	// must not hand those 3 units out again.
	if err := e.Cache.Invalidate(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.redeemer.Redeem(e.Ctx, 64, tpl.ID, ""); err != nil {
		t.Fatal(err)
	}
	if got := e.redisStock(t, tpl.ID); got != 6 {
		t.Fatalf("stock after rebuild and one more claim = %d, want 6", got)
	}
}

func TestValidityHoursCouponJoinsItsExpiryBucket(t *testing.T) {
	e := newRedeemEnv(t, "validity", claim.Config{})
	tpl := e.Template(t, 10, 1, func(in *template.CreateInput) {
		in.ValidEndTime = time.Now().Add(90 * 24 * time.Hour)
		in.ValidityHours = num(1)
	})
	red, err := e.redeemer.Redeem(e.Ctx, 70, tpl.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	got, err := e.redeemer.Redemption(e.Ctx, 70, red.ID)
	if err != nil || got.Status != claim.RedemptionIssued {
		t.Fatalf("redemption = %+v, %v", got, err)
	}
	uc := got.Coupon
	if d := uc.ValidEndTime.Sub(uc.ValidStartTime); d != time.Hour {
		t.Fatalf("coupon valid for %s, want 1h (validityHours), not until the template's end", d)
	}
	// The persister put the coupon in the bucket of its end minute ...
	bucket := expiry.BucketMinute(uc.ValidEndTime)
	if ok, _ := e.Redis.SIsMember(e.Ctx, keys.ExpiryBucket(tpl.ID, bucket.Unix()), keys.BucketMember(70, uc.ID)).Result(); !ok {
		t.Fatal("the coupon is not in its expiry bucket")
	}
	// ... and queued that bucket's task for the minute after it, in the expiry queue (jobs'
	// tests run such a task; expiry's tests the bucket itself).
	insp := asynq.NewInspector(testutil.QueueOpt())
	defer insp.Close()
	task, err := insp.GetTaskInfo(jobs.QueueName(jobs.QueueDefault), fmt.Sprintf("expire:%d:%d", tpl.ID, bucket.Unix()))
	if err != nil || !task.NextProcessAt.Equal(bucket.Add(time.Minute)) {
		t.Fatalf("bucket task = %+v, %v; want one due at %v", task, err, bucket.Add(time.Minute))
	}
}

// TestAdministrationDuringAFlashSale: stock increases and a termination land while claims fire.
// Every unit is accounted for (accepted + remaining = stock + increases, in Redis and, once the
// outbox is drained, in MySQL), and no claim that starts after Terminate returned is accepted.
func TestAdministrationDuringAFlashSale(t *testing.T) {
	e := newRedeemEnv(t, "admin_during_sale", claim.Config{})
	tpl := e.Template(t, 300, 1, nil)
	var accepted, afterTerminate atomic.Int64
	var terminated atomic.Bool
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				startedAfter := terminated.Load()
				_, err := e.redeemer.Redeem(e.Ctx, int64(w*1000+i), tpl.ID, "")
				switch {
				case err == nil:
					accepted.Add(1)
					if startedAfter {
						afterTerminate.Add(1)
					}
				case codeOf(err) != coupon.CodeOutOfStock && codeOf(err) != coupon.CodeEnded:
					t.Errorf("claim: %v", err)
				}
			}
		}()
	}
	const increases, amount = 10, 20
	for range increases {
		if _, err := e.Templates.IncreaseStock(e.Ctx, stack.Merchant, tpl.ID, amount); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if _, err := e.Templates.Terminate(e.Ctx, stack.Merchant, tpl.ID); err != nil {
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
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if rows, stock := len(e.coupons(t, tpl.ID)), e.dbStock(t, tpl.ID); rows != int(accepted.Load()) || rows+stock != total {
		t.Fatalf("MySQL: %d coupons + stock %d; want %d coupons and %d in all", rows, stock, accepted.Load(), total)
	}
}

func num(n int) *int { return &n }

// A replay answers the redemption as it stands now: the same id, ISSUED with its coupon once the
// persister recorded it (not the PENDING of the first answer).
func TestReplayAnswersTheRedemptionAsItStandsNow(t *testing.T) {
	e := newRedeemEnv(t, "replay_now", claim.Config{})
	tpl := e.Template(t, 10, 1, nil)
	first, err := e.redeemer.Redeem(e.Ctx, 3, tpl.ID, "again")
	if err != nil || first.Status != claim.RedemptionPending {
		t.Fatalf("first answer = %+v, %v", first, err)
	}
	if again, err := e.redeemer.Redeem(e.Ctx, 3, tpl.ID, "again"); err != nil || again.ID != first.ID || again.Status != claim.RedemptionPending {
		t.Fatalf("replay before persistence = %+v, %v", again, err)
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	again, err := e.redeemer.Redeem(e.Ctx, 3, tpl.ID, "again")
	if err != nil || again.ID != first.ID || again.Status != claim.RedemptionIssued || again.Coupon == nil {
		t.Fatalf("replay after persistence = %+v, %v; want ISSUED with the coupon, same id", again, err)
	}
}
