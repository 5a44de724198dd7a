package checkout_test

import (
	"encoding/json"
	"testing"
	"time"

	"coupond/coupon/checkout"
	"coupond/ent/couponsettlement"
	"coupond/ent/usercoupon"
	"coupond/testutil/stack"
)

// TestRowScannersCoverColumns: the plain reads scan every column of user_coupon and
// coupon_settlement (a column added to the schema fails here until the scanners read it).
func TestRowScannersCoverColumns(t *testing.T) {
	if cols := checkout.UnscannedColumns(); len(cols) > 0 {
		t.Fatalf("the plain reads do not scan %v", cols)
	}
}

// TestPlainReadsAsEnt: the plain reads of a coupon and of its settlement answer what ent's
// queries answer, field for field (nullable fields set and unset): a LOCKED settlement and its
// coupon, then PAID and USED.
func TestPlainReadsAsEnt(t *testing.T) {
	st := stack.New(t, pkg, "plainreads", stack.Options{})
	tpl := tplWith(t, st, nil)
	uc := give(t, st, tpl, 51, 1, time.Now().Add(time.Hour))[0]
	same := func(what string, plain, viaEnt any) {
		t.Helper()
		a, _ := json.Marshal(plain)
		b, _ := json.Marshal(viaEnt)
		if string(a) != string(b) {
			t.Errorf("%s: plain read %s\nent %s", what, a, b)
		}
	}
	check := func(step string) {
		t.Helper()
		plain, err := st.Checkout.SettlementOf(st.Ctx, 51, 7, uc.ID)
		if err != nil {
			t.Fatal(err)
		}
		viaEnt, err := st.DB.CouponSettlement.Query().Where(couponsettlement.UserID(51), couponsettlement.OrderID(7), couponsettlement.CouponID(uc.ID)).Only(st.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		same(step+": settlement", plain, viaEnt)
		pc, err := st.Checkout.CouponForOrder(st.Ctx, user(51), uc.ID, 7)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := st.Checkout.CouponForOrder(st.Ctx, orders, uc.ID, 7)
		if err != nil {
			t.Fatal(err)
		}
		ec, err := st.DB.UserCoupon.Query().Where(usercoupon.ID(uc.ID)).Only(st.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		same(step+": the user's coupon", pc, ec)
		same(step+": the order system's coupon", sc, ec)
	}
	if _, err := st.Checkout.Lock(st.Ctx, user(51), uc.ID, order(7, "20.00")); err != nil {
		t.Fatal(err)
	}
	check("locked")
	if _, err := st.Checkout.Confirm(st.Ctx, orders, 7, uc.ID, dec("20.00")); err != nil {
		t.Fatal(err)
	}
	check("paid")
	if _, err := st.Checkout.CouponForOrder(st.Ctx, user(52), uc.ID, 7); err == nil {
		t.Error("another user's read found the coupon")
	}
}
