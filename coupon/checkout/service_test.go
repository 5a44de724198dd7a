package checkout_test

import (
	"testing"
	"time"

	"coupond/coupon"
	"coupond/ent/couponsettlement"
	"coupond/ent/usercoupon"
	"coupond/testutil/stack"
)

// TestOnlyTheOrderSystemPays: a USER (or a merchant) cannot confirm or refund, not even its own
// coupon's order (NOT_OWNER, nothing changes); the order system (SERVICE) locks, releases,
// confirms and refunds any user's coupon named by id; a confirmation of another amount than the
// locked order's is AMOUNT_MISMATCH and leaves the settlement LOCKED; the same amount written
// otherwise ("20" for "20.00") is the same amount.
func TestOnlyTheOrderSystemPays(t *testing.T) {
	st := stack.New(t, pkg, "service", stack.Options{})
	tpl := tplWith(t, st, nil)
	uc := give(t, st, tpl, 21, 1, time.Now().Add(time.Hour))[0]
	if _, err := st.Checkout.Lock(st.Ctx, user(21), uc.ID, order(1, "20.00")); err != nil {
		t.Fatal(err)
	}
	for _, a := range []coupon.Actor{user(21), stack.Merchant} {
		if _, err := st.Checkout.Confirm(st.Ctx, a, 1, uc.ID, dec("20")); !isCode(err, coupon.CodeNotOwner) {
			t.Fatalf("%s confirms: %v", a.Role, err)
		}
	}
	if _, err := st.Checkout.Confirm(st.Ctx, orders, 1, uc.ID, dec("19.99")); !isCode(err, coupon.CodeAmountMismatch) ||
		coupon.AsErrors(err)[0].Field[0] != "orderAmount" {
		t.Fatalf("confirm of another amount: %v", err)
	}
	if cur := checkBooks(t, st, uc, false); cur.Status != usercoupon.StatusLOCKED {
		t.Fatalf("coupon %s after refused confirmations", cur.Status)
	}
	s, err := st.Checkout.Confirm(st.Ctx, orders, 1, uc.ID, dec("20"))
	if err != nil || s.Status != couponsettlement.StatusPAID {
		t.Fatalf("the order system's confirmation: %+v, %v", s, err)
	}
	if _, err := st.Checkout.Confirm(st.Ctx, orders, 1, uc.ID, dec("25")); !isCode(err, coupon.CodeAmountMismatch) {
		t.Fatalf("a repeat for another amount: %v", err)
	}
	if _, err := st.Checkout.Refund(st.Ctx, user(21), 1, uc.ID); !isCode(err, coupon.CodeNotOwner) {
		t.Fatalf("the user refunds: %v", err)
	}
	if cur := checkBooks(t, st, uc, false); cur.Status != usercoupon.StatusUSED {
		t.Fatalf("coupon %s after the user's refund was refused", cur.Status)
	}
	if s, err := st.Checkout.Refund(st.Ctx, orders, 1, uc.ID); err != nil || s.Status != couponsettlement.StatusREFUNDED {
		t.Fatalf("the order system's refund: %+v, %v", s, err)
	}
	// The order system locks and releases on the user's behalf; a coupon id nobody holds is NOT_FOUND.
	if s, err := st.Checkout.Lock(st.Ctx, orders, uc.ID, order(2, "20")); err != nil || s.UserID != 21 {
		t.Fatalf("the order system locks: %+v, %v", s, err)
	}
	if s, err := st.Checkout.Release(st.Ctx, orders, 2, uc.ID); err != nil || s.Status != couponsettlement.StatusCANCELED {
		t.Fatalf("the order system releases: %+v, %v", s, err)
	}
	if _, err := st.Checkout.Lock(st.Ctx, orders, uc.ID+1_000_000, order(3, "20")); !isCode(err, coupon.CodeNotFound) {
		t.Fatalf("an unknown coupon: %v", err)
	}
	checkBooks(t, st, uc, false)
}
