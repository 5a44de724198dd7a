package checkout_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/checkout"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/defaults"
	"coupond/ent/couponsettlement"
	"coupond/ent/coupontemplate"
	"coupond/ent/usercoupon"
	"coupond/testutil/stack"

	"github.com/redis/go-redis/v9"
)

// TestLockRace: 50 orders lock one coupon at once → one LOCKED settlement, 49 ALREADY_LOCKED.
func TestLockRace(t *testing.T) {
	st := stack.New(t, pkg, "lock_race", stack.Options{})
	tpl := tplWith(t, st, nil)
	uc := give(t, st, tpl, 42, 1, time.Now().Add(time.Hour))[0]
	var wg sync.WaitGroup
	results := make([]error, 50)
	winners := make(chan *checkout.Settlement, 50)
	for i := range 50 {
		wg.Go(func() {
			s, err := st.Checkout.Lock(st.Ctx, user(42), uc.ID, order(int64(1000+i), "100"))
			results[i] = err
			if err == nil {
				winners <- s
			}
		})
	}
	wg.Wait()
	close(winners)
	locked, already := 0, 0
	for _, err := range results {
		switch code(err) {
		case "":
			locked++
		case coupon.CodeAlreadyLocked:
			already++
		default:
			t.Errorf("unexpected answer %v", err)
		}
	}
	if locked != 1 || already != 49 {
		t.Fatalf("locked %d, ALREADY_LOCKED %d; want 1 and 49", locked, already)
	}
	w := <-winners
	if w.Status != couponsettlement.StatusLOCKED || !w.DiscountAmount.Equal(dec("5")) || !w.PayableAmount.Equal(dec("95")) {
		t.Fatalf("settlement %+v", w.CouponSettlement)
	}
	n, _ := st.DB.CouponSettlement.Query().Where(couponsettlement.UserID(42)).Count(st.Ctx)
	if n != 1 {
		t.Fatalf("%d settlements, want 1", n)
	}
	checkBooks(t, st, uc, false)
}

// TestRepeatsRace: 20 concurrent repeats of each call on one (order, coupon) give one
// settlement and 20 equal answers, and change nothing more.
func TestRepeatsRace(t *testing.T) {
	st := stack.New(t, pkg, "repeats", stack.Options{})
	tpl := tplWith(t, st, nil)
	uc := give(t, st, tpl, 7, 1, time.Now().Add(time.Hour))[0]
	calls := []struct {
		name string
		call func() (*checkout.Settlement, error)
		want couponsettlement.Status
	}{
		{"lock", func() (*checkout.Settlement, error) {
			return st.Checkout.Lock(st.Ctx, user(7), uc.ID, order(9, "100"))
		}, couponsettlement.StatusLOCKED},
		{"confirm", func() (*checkout.Settlement, error) { return st.Checkout.Confirm(st.Ctx, orders, 9, uc.ID, dec("100")) }, couponsettlement.StatusPAID},
		{"refund", func() (*checkout.Settlement, error) { return st.Checkout.Refund(st.Ctx, orders, 9, uc.ID) }, couponsettlement.StatusREFUNDED},
	}
	var id int64
	for _, c := range calls {
		var wg sync.WaitGroup
		answers := make([]*checkout.Settlement, 20)
		errs := make([]error, 20)
		for i := range 20 {
			wg.Go(func() { answers[i], errs[i] = c.call() })
		}
		wg.Wait()
		for i := range 20 {
			if errs[i] != nil {
				t.Fatalf("%s #%d: %v", c.name, i, errs[i])
			}
			a, first := answers[i], answers[0]
			if a.ID != first.ID || a.Status != c.want || !a.DiscountAmount.Equal(first.DiscountAmount) || !a.PayableAmount.Equal(first.PayableAmount) ||
				!a.UpdatedAt.Equal(first.UpdatedAt) {
				t.Fatalf("%s #%d answered %+v, #0 %+v", c.name, i, a.CouponSettlement, first.CouponSettlement)
			}
		}
		if id == 0 {
			id = answers[0].ID
		} else if answers[0].ID != id {
			t.Fatalf("%s answered settlement %d, lock made %d", c.name, answers[0].ID, id)
		}
		checkBooks(t, st, uc, false)
	}
	n, _ := st.DB.CouponSettlement.Query().Where(couponsettlement.UserID(7)).Count(st.Ctx)
	if n != 1 {
		t.Fatalf("%d settlements, want 1", n)
	}
	day := keys.StatsDay(time.Now())
	stats, _ := st.Redis.HGetAll(st.Ctx, keys.DailyStats(tpl.ID, day)).Result()
	if stats[keys.StatUsed] != "0" || stats[keys.StatDiscountCents] != "0" || stats[keys.StatRefunded] != "1" || stats[keys.StatRefundedDiscountCents] != "500" {
		t.Fatalf("stats %v: want used 0, 0 cents, refunded 1, 500 cents (the refund nets the payment out)", stats)
	}
}

// TestTransitionsRace: lock, confirm, release and refund of two orders racing on each of many
// coupons give only legal answers, and the coupon and its settlements agree after — with the
// transactions' writes sent at once (the checkout's pool) and one by one (the main pool).
func TestTransitionsRace(t *testing.T) {
	for _, c := range []struct {
		policy coupontemplate.RefundPolicy
		plain  bool
	}{{coupontemplate.RefundPolicyRETURN, false}, {coupontemplate.RefundPolicyFORFEIT, false}, {coupontemplate.RefundPolicyRETURN, true}} {
		policy, name := c.policy, strings.ToLower(string(c.policy))
		if c.plain {
			name += "_plain"
		}
		t.Run(name, func(t *testing.T) {
			st := stack.New(t, pkg, "race_"+name, stack.Options{PlainCheckout: c.plain})
			tpl := tplWith(t, st, func(in *template.CreateInput) { in.RefundPolicy = &policy })
			coupons := give(t, st, tpl, 5, 30, time.Now().Add(time.Hour))
			legal := map[coupon.Code]bool{"": true, coupon.CodeAlreadyLocked: true, coupon.CodeInvalidState: true, coupon.CodeNotFound: true}
			var wg sync.WaitGroup
			for ci, uc := range coupons {
				for round := range 4 {
					for _, orderID := range []int64{int64(10*ci + 1), int64(10*ci + 2)} { // two orders per coupon: one coupon per order slot
						ops := []func() (*checkout.Settlement, error){
							func() (*checkout.Settlement, error) {
								return st.Checkout.Lock(st.Ctx, user(5), uc.ID, order(orderID, "50"))
							},
							func() (*checkout.Settlement, error) {
								return st.Checkout.Confirm(st.Ctx, orders, orderID, uc.ID, dec("50"))
							},
							func() (*checkout.Settlement, error) { return st.Checkout.Release(st.Ctx, user(5), orderID, uc.ID) },
							func() (*checkout.Settlement, error) { return st.Checkout.Refund(st.Ctx, orders, orderID, uc.ID) },
						}
						wants := []couponsettlement.Status{couponsettlement.StatusLOCKED, couponsettlement.StatusPAID, couponsettlement.StatusCANCELED, couponsettlement.StatusREFUNDED}
						for i, op := range ops {
							wg.Go(func() {
								time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
								s, err := op()
								if !legal[code(err)] {
									t.Errorf("coupon %d round %d op %d: %v", uc.ID, round, i, err)
									return
								}
								if err == nil && s.Status != wants[i] && !(i == 0 && s.Status == couponsettlement.StatusPAID) {
									t.Errorf("op %d answered %s", i, s.Status)
								}
							})
						}
					}
				}
			}
			wg.Wait()
			noOpenTransactions(t, st)
			for _, uc := range coupons {
				checkBooks(t, st, uc, policy == coupontemplate.RefundPolicyFORFEIT)
			}
		})
	}
}

// TestLockTTL: a lock left alone for its TTL is released by its task: the coupon is UNUSED, the
// settlement CANCELED; confirming it then is refused.
func TestLockTTL(t *testing.T) {
	st := stack.New(t, pkg, "ttl", stack.Options{Worker: true, Config: servicesConfig(time.Second)})
	tpl := tplWith(t, st, nil)
	uc := give(t, st, tpl, 3, 1, time.Now().Add(time.Hour))[0]
	s, err := st.Checkout.Lock(st.Ctx, user(3), uc.ID, order(77, "20"))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		row, err := st.DB.CouponSettlement.Get(st.Ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if row.Status == couponsettlement.StatusCANCELED {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("settlement still %s 15s after a 1s lock", row.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	cur := checkBooks(t, st, uc, false)
	if cur.Status != usercoupon.StatusUNUSED {
		t.Fatalf("coupon %s after its lock expired", cur.Status)
	}
	if _, err := st.Checkout.Confirm(st.Ctx, orders, 77, uc.ID, dec("20")); !isCode(err, coupon.CodeInvalidState) {
		t.Fatalf("confirm after the lock's release: %v", err)
	}
	// The coupon can be locked again, by another order or by the same one.
	if _, err := st.Checkout.Lock(st.Ctx, user(3), uc.ID, order(77, "20")); err != nil {
		t.Fatalf("lock again: %v", err)
	}
	checkBooks(t, st, uc, false)
}

// TestConfirmAfterExpiry: before any task ran, a confirmation past the lock's expiry is EXPIRED;
// the sweep then releases the lock.
func TestConfirmAfterExpiry(t *testing.T) {
	st := stack.New(t, pkg, "confirm_late", stack.Options{})
	tpl := tplWith(t, st, nil)
	uc := give(t, st, tpl, 3, 1, time.Now().Add(time.Hour))[0]
	clock := time.Now()
	checkout.SetClock(st.Checkout, func() time.Time { return clock })
	if _, err := st.Checkout.Lock(st.Ctx, user(3), uc.ID, order(5, "20")); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(defaults.LockTTL)
	if _, err := st.Checkout.Confirm(st.Ctx, orders, 5, uc.ID, dec("20")); !isCode(err, coupon.CodeExpired) {
		t.Fatalf("confirm at the expiry: %v", err)
	}
	clock = clock.Add(time.Minute)
	res, err := st.Checkout.Sweep(st.Ctx)
	if err != nil || res.Released != 1 {
		t.Fatalf("sweep %+v, %v", res, err)
	}
	if checkBooks(t, st, uc, false).Status != usercoupon.StatusUNUSED {
		t.Fatal("not released")
	}
}

// TestRefundAfterEnd: a RETURN refund after the coupon's end makes it EXPIRED, not UNUSED (a
// refund never revives an expired coupon); FORFEIT keeps it USED.
func TestRefundAfterEnd(t *testing.T) {
	st := stack.New(t, pkg, "refund_end", stack.Options{})
	forfeit := coupontemplate.RefundPolicyFORFEIT
	for _, tc := range []struct {
		policy *coupontemplate.RefundPolicy
		want   usercoupon.Status
	}{{nil, usercoupon.StatusEXPIRED}, {&forfeit, usercoupon.StatusUSED}} {
		tpl := tplWith(t, st, func(in *template.CreateInput) { in.RefundPolicy = tc.policy })
		uc := give(t, st, tpl, 8, 1, time.Now().Add(time.Hour))[0]
		clock := time.Now()
		checkout.SetClock(st.Checkout, func() time.Time { return clock })
		if _, err := st.Checkout.Lock(st.Ctx, user(8), uc.ID, order(3, "20")); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Checkout.Confirm(st.Ctx, orders, 3, uc.ID, dec("20")); err != nil {
			t.Fatal(err)
		}
		paidDay := keys.StatsDay(clock) // the refund counts there; the expiry on its own day
		clock = uc.ValidEndTime.Add(time.Second)
		s, err := st.Checkout.Refund(st.Ctx, orders, 3, uc.ID)
		if err != nil || s.Status != couponsettlement.StatusREFUNDED || s.Coupon.Status != tc.want {
			t.Fatalf("refund: %+v, %v", s, err)
		}
		cur := checkBooks(t, st, uc, tc.policy != nil)
		if cur.Status != tc.want {
			t.Fatalf("coupon %s after a refund past its end, want %s", cur.Status, tc.want)
		}
		ended := st.Redis.HGetAll(st.Ctx, keys.DailyStats(tpl.ID, keys.StatsDay(clock))).Val()
		paid := st.Redis.HGetAll(st.Ctx, keys.DailyStats(tpl.ID, paidDay)).Val()
		if wantExpired := map[bool]string{true: "1", false: ""}[tc.policy == nil]; ended[keys.StatExpired] != wantExpired || paid[keys.StatRefunded] != "1" {
			t.Fatalf("stats after the refund: %v on the end's day, %v on the payment's: want expired %q, refunded 1", ended, paid, wantExpired)
		}
	}
}

// TestReleaseAfterEnd: a lock released after the coupon's end leaves it EXPIRED (counted once).
func TestReleaseAfterEnd(t *testing.T) {
	st := stack.New(t, pkg, "release_end", stack.Options{})
	tpl := tplWith(t, st, nil)
	uc := give(t, st, tpl, 9, 1, time.Now().Add(time.Hour))[0]
	clock := time.Now()
	checkout.SetClock(st.Checkout, func() time.Time { return clock })
	if _, err := st.Checkout.Lock(st.Ctx, user(9), uc.ID, order(4, "20")); err != nil {
		t.Fatal(err)
	}
	clock = uc.ValidEndTime.Add(time.Second)
	for range 3 { // repeats count nothing more
		s, err := st.Checkout.Release(st.Ctx, user(9), 4, uc.ID)
		if err != nil || s.Status != couponsettlement.StatusCANCELED {
			t.Fatalf("release: %+v, %v", s, err)
		}
	}
	if cur := checkBooks(t, st, uc, false); cur.Status != usercoupon.StatusEXPIRED {
		t.Fatalf("coupon %s after a release past its end", cur.Status)
	}
	if got := st.Redis.HGet(st.Ctx, keys.DailyStats(tpl.ID, keys.StatsDay(clock)), keys.StatExpired).Val(); got != "1" {
		t.Fatalf("expired counted %q times", got)
	}
}

// TestSweepReplays: a crash between a commit and its after-commit work (simulated: the pending
// entry left, and one naming an order that locked nothing) is repaired by the sweep, and a
// replayed count adds nothing.
func TestSweepReplays(t *testing.T) {
	st := stack.New(t, pkg, "replay", stack.Options{})
	tpl := tplWith(t, st, nil)
	uc := give(t, st, tpl, 4, 1, time.Now().Add(time.Hour))[0]
	if _, err := st.Checkout.Lock(st.Ctx, user(4), uc.ID, order(6, "30")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Checkout.Confirm(st.Ctx, orders, 6, uc.ID, dec("30")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	old := float64(time.Now().Add(-time.Hour).UnixMilli())
	st.Redis.ZAdd(ctx, keys.CheckoutPending(), redis.Z{Score: old, Member: keys.PendingMember(4, 6, uc.ID, "crashed")},
		redis.Z{Score: old, Member: keys.PendingMember(4, 99, uc.ID, "nolock")})
	res, err := st.Checkout.Sweep(ctx)
	if err != nil || res.Replayed != 2 {
		t.Fatalf("sweep %+v, %v", res, err)
	}
	checkBooks(t, st, uc, false)
	stats, _ := st.Redis.HGetAll(ctx, keys.DailyStats(tpl.ID, keys.StatsDay(time.Now()))).Result()
	if stats[keys.StatUsed] != "1" || stats[keys.StatDiscountCents] != "500" {
		t.Fatalf("stats after a replay %v, want used 1 and 500 cents", stats)
	}
	pendingCleared(t, st.Redis) // the calls' own entries leave after them, off their path
}

// TestLockRefusals: another user's coupon is NOT_FOUND; an expired coupon EXPIRED; a used one
// INVALID_STATE naming its state; a 3-decimal amount INVALID_INPUT under order.amount.
func TestLockRefusals(t *testing.T) {
	st := stack.New(t, pkg, "refusals", stack.Options{})
	tpl := tplWith(t, st, nil)
	uc := give(t, st, tpl, 11, 1, time.Now().Add(time.Hour))[0]
	if _, err := st.Checkout.Lock(st.Ctx, user(12), uc.ID, order(1, "10")); !isCode(err, coupon.CodeNotFound) {
		t.Fatalf("another user's coupon: %v", err)
	}
	o := order(1, "10")
	o.Amount = dec("10.001")
	_, err := st.Checkout.Lock(st.Ctx, user(11), uc.ID, o)
	if errs := coupon.AsErrors(err); len(errs) != 1 || errs[0].Code != coupon.CodeInvalidInput || len(errs[0].Field) != 2 || errs[0].Field[1] != "amount" {
		t.Fatalf("3 decimals: %v", err)
	}
	old := give(t, st, tpl, 11, 1, time.Now().Add(-time.Second))[0]
	if _, err := st.Checkout.Lock(st.Ctx, user(11), old.ID, order(1, "10")); !isCode(err, coupon.CodeExpired) {
		t.Fatalf("expired coupon: %v", err)
	}
	if _, err := st.Checkout.Lock(st.Ctx, user(11), uc.ID, order(1, "10")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Checkout.Confirm(st.Ctx, orders, 1, uc.ID, dec("10")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Checkout.Lock(st.Ctx, user(11), uc.ID, order(2, "10")); !isCode(err, coupon.CodeInvalidState) || err.Error() != "INVALID_STATE: the coupon is USED" {
		t.Fatalf("used coupon: %v", err)
	}
	if _, err := st.Checkout.Release(st.Ctx, user(11), 1, uc.ID); !isCode(err, coupon.CodeInvalidState) {
		t.Fatalf("release of a paid settlement: %v", err)
	}
}
