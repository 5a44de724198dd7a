package archive_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/archive"
	"coupond/coupon/checkout"
	"coupond/coupon/issue"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/couponsettlement"
	"coupond/ent/coupontemplate"
	"coupond/ent/usercoupon"
	"coupond/testutil/stack"

	"github.com/shopspring/decimal"
)

// Through the real checkout: a paid coupon (refundable) stays in user_coupon and can still be
// refunded after the archive ran; a coupon whose payment was refunded (FORFEIT: it stays USED) and
// a lock released past its end (EXPIRED) are archived once old enough.
func TestArchiveLeavesRefundableCouponsToCheckout(t *testing.T) {
	st := stack.New(t, "archive", "checkout", stack.Options{})
	ctx := context.Background()
	forfeit := coupontemplate.RefundPolicyFORFEIT
	tpl := st.Template(t, 100, 100, func(in *template.CreateInput) { in.RefundPolicy = &forfeit })
	user := coupon.Actor{UserID: 31, Role: coupon.RoleUser}
	cs := give(t, st, tpl, user.UserID, 3)
	order := func(id int64) checkout.Order {
		return checkout.Order{ID: id, Shop: stack.Merchant.Shop, Amount: decimal.NewFromInt(100)}
	}
	for i, c := range cs[:2] {
		if _, err := st.Checkout.Lock(ctx, user, c.ID, order(int64(i+1))); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Checkout.Confirm(ctx, stack.Orders, int64(i+1), c.ID, decimal.NewFromInt(100)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Checkout.Refund(ctx, stack.Orders, 2, cs[1].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Checkout.Lock(ctx, user, cs[2].ID, order(3)); err != nil {
		t.Fatal(err)
	}
	// The third coupon's lock is released after its end: EXPIRED (as a release past the end leaves it).
	if _, err := st.DB.UserCoupon.Update().Where(usercoupon.UserID(user.UserID), usercoupon.ID(cs[2].ID)).
		SetValidEndTime(time.Now().Add(-time.Minute)).Save(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Checkout.Release(ctx, user, 3, cs[2].ID); err != nil {
		t.Fatal(err)
	}
	statuses := map[int64]usercoupon.Status{}
	for _, c := range st.DB.UserCoupon.Query().AllX(ctx) {
		statuses[c.ID] = c.Status
	}
	if statuses[cs[0].ID] != usercoupon.StatusUSED || statuses[cs[1].ID] != usercoupon.StatusUSED || statuses[cs[2].ID] != usercoupon.StatusEXPIRED {
		t.Fatalf("statuses before the archive: %v", statuses)
	}

	// The archive runs as if 91 days had passed (age 90 days).
	a := archive.New(st.DB, st.Redis, archive.Config{After: 90 * 24 * time.Hour, BatchSize: 2})
	archive.SetClock(a, func() time.Time { return time.Now().Add(91 * 24 * time.Hour) })
	res, err := a.Run(ctx)
	if err != nil || res.Moved != 2 || res.Kept != 1 {
		t.Fatalf("archive: %+v, %v; want 2 moved, the paid one kept", res, err)
	}
	if ids := st.DB.UserCoupon.Query().IDsX(ctx); len(ids) != 1 || ids[0] != cs[0].ID {
		t.Fatalf("left in user_coupon: %v, want the paid coupon %d", ids, cs[0].ID)
	}
	if n := st.DB.UserCouponArchive.Query().CountX(ctx); n != 2 {
		t.Fatalf("%d archived, want 2", n)
	}
	// The paid coupon's settlement still works: refund it.
	s, err := st.Checkout.Refund(ctx, stack.Orders, 1, cs[0].ID)
	if err != nil || s.Status != couponsettlement.StatusREFUNDED {
		t.Fatalf("refund after the archive: %+v, %v", s, err)
	}
	// That refund (FORFEIT: the coupon stays USED, no payment stands) queued it again: it moves next.
	if res, err := a.Run(ctx); err != nil || res.Moved != 1 || res.Kept != 0 {
		t.Fatalf("archive after the refund: %+v, %v; want the refunded coupon moved", res, err)
	}
	if n := st.DB.UserCoupon.Query().CountX(ctx); n != 0 {
		t.Fatalf("%d coupons left in user_coupon", n)
	}
}

// TestArchiveQueueUnderCheckout: archivers run without pause (and without the lease) while users
// lock, pay and, every other coupon, get refunded under FORFEIT, all at once: no checkout call
// fails, no coupon is in both tables or neither, a paid coupon is never moved, and once the calls
// are done one more run moves exactly the coupons whose payment was refunded.
func TestArchiveQueueUnderCheckout(t *testing.T) {
	st := stack.New(t, "archive", "under_checkout", stack.Options{})
	ctx := context.Background()
	forfeit := coupontemplate.RefundPolicyFORFEIT
	tpl := st.Template(t, 1000, 1000, func(in *template.CreateInput) { in.RefundPolicy = &forfeit })
	const users, each = 8, 12
	var all []*ent.UserCoupon
	for u := range users {
		all = append(all, give(t, st, tpl, int64(100+u), each)...)
	}
	stop := make(chan struct{})
	var archivers sync.WaitGroup
	var moved atomic.Int64
	for range 2 {
		archivers.Go(func() {
			a := archive.New(st.DB, st.Redis, archive.Config{After: time.Millisecond, BatchSize: 5})
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := archive.RunUnleased(ctx, a)
				if err != nil {
					t.Error(err)
					return
				}
				moved.Add(int64(res.Moved))
			}
		})
	}
	var calls sync.WaitGroup
	for u := range users {
		calls.Go(func() {
			actor := coupon.Actor{UserID: int64(100 + u), Role: coupon.RoleUser}
			for i, c := range all[u*each : (u+1)*each] {
				orderID := int64(1000*u + i + 1)
				o := checkout.Order{ID: orderID, Shop: stack.Merchant.Shop, Amount: decimal.NewFromInt(100)}
				if _, err := st.Checkout.Lock(ctx, actor, c.ID, o); err != nil {
					t.Errorf("lock %d: %v", c.ID, err)
					continue
				}
				if _, err := st.Checkout.Confirm(ctx, stack.Orders, orderID, c.ID, decimal.NewFromInt(100)); err != nil {
					t.Errorf("confirm %d: %v", c.ID, err)
					continue
				}
				if i%2 == 1 {
					if _, err := st.Checkout.Refund(ctx, stack.Orders, orderID, c.ID); err != nil {
						t.Errorf("refund %d: %v", c.ID, err)
					}
				}
			}
		})
	}
	calls.Wait()
	close(stop)
	archivers.Wait()
	time.Sleep(5 * time.Millisecond) // the last refunds come due
	a := archive.New(st.DB, st.Redis, archive.Config{After: time.Millisecond, BatchSize: 5})
	res, err := a.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	moved.Add(int64(res.Moved))
	hot := map[int64]bool{}
	for _, id := range st.DB.UserCoupon.Query().IDsX(ctx) {
		hot[id] = true
	}
	cold := map[int64]bool{}
	for _, id := range st.DB.UserCouponArchive.Query().IDsX(ctx) {
		cold[id] = true
	}
	for u := range users {
		for i, c := range all[u*each : (u+1)*each] {
			refunded := i%2 == 1
			switch {
			case hot[c.ID] == cold[c.ID]:
				t.Errorf("coupon %d: in user_coupon %v, in the archive %v", c.ID, hot[c.ID], cold[c.ID])
			case refunded && !cold[c.ID]:
				t.Errorf("coupon %d: refunded under FORFEIT long enough ago, still in user_coupon", c.ID)
			case !refunded && cold[c.ID]:
				t.Errorf("coupon %d: paid (refundable) but archived", c.ID)
			}
		}
	}
	if int(moved.Load()) != users*each/2 || len(cold) != users*each/2 {
		t.Errorf("moved %d (reported) / %d (archive), want %d", moved.Load(), len(cold), users*each/2)
	}
	if n := st.DB.ArchiveDue.Query().CountX(ctx); n != 0 {
		t.Errorf("%d queue entries left", n)
	}
}

// give issues n coupons of tpl to userID, valid for a day, as the claim path does.
func give(t *testing.T, st *stack.Stack, tpl *coupon.Template, userID int64, n int) []*ent.UserCoupon {
	t.Helper()
	ctx := context.Background()
	tx, err := st.DB.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	var out []*ent.UserCoupon
	for i := range n {
		uc, err := issue.Create(tx, issue.Coupon{UserID: userID, TemplateID: tpl.ID, RedemptionID: fmt.Sprintf("arch-%d-%d-%d", tpl.ID, userID, i),
			ReceiveCount: i + 1, Source: usercoupon.SourceDISTRIBUTION, At: now.Add(-time.Second), End: now.Add(24 * time.Hour)}).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, uc)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestArchiveTakesWhatTheExpiryQueued: coupons the expiry sweep made EXPIRED are in the archive's
// queue, once each, and the archive moves them once old enough; the UNUSED ones it left are not.
func TestArchiveTakesWhatTheExpiryQueued(t *testing.T) {
	st := stack.New(t, "archive", "expiry", stack.Options{})
	ctx := context.Background()
	tpl := st.Template(t, 100, 100, nil)
	cs := give(t, st, tpl, 41, 5)
	ended := time.Now().Add(-24 * time.Hour)
	if _, err := st.DB.UserCoupon.Update().Where(usercoupon.UserID(41), usercoupon.IDIn(cs[0].ID, cs[1].ID, cs[2].ID)).
		SetValidEndTime(ended).Save(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Expirer.Sweep(ctx); err != nil || n != 3 {
		t.Fatalf("sweep: %d, %v; want 3 expired", n, err)
	}
	due := st.DB.ArchiveDue.Query().AllX(ctx)
	if len(due) != 3 {
		t.Fatalf("queue after the sweep: %v, want the 3 expired coupons", due)
	}
	for _, d := range due {
		if d.UserID != 41 || (d.ID != cs[0].ID && d.ID != cs[1].ID && d.ID != cs[2].ID) {
			t.Fatalf("queue entry %+v is not one of the expired coupons", d)
		}
	}
	a := archive.New(st.DB, st.Redis, archive.Config{After: 90 * 24 * time.Hour})
	archive.SetClock(a, func() time.Time { return time.Now().Add(91 * 24 * time.Hour) })
	if res, err := a.Run(ctx); err != nil || res.Moved != 3 {
		t.Fatalf("archive: %+v, %v; want the 3 expired coupons moved", res, err)
	}
	if n := st.DB.UserCoupon.Query().CountX(ctx); n != 2 {
		t.Fatalf("%d coupons left, want the 2 unused ones", n)
	}
}
