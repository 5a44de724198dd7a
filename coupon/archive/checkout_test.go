package archive_test

import (
	"context"
	"fmt"
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
		uc, err := issue.Create(tx, issue.Coupon{UserID: userID, TemplateID: tpl.ID, RedemptionID: fmt.Sprintf("arch-%d-%d", tpl.ID, i),
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
