package checkout_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"coupond/coupon/checkout"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/testutil/stack"
)

// TestApplicableReadsTheWalletAsEnt: Applicable reads a wallet with its own scan of the columns a
// quote and the API read; every coupon it answers equals ent's read of those columns (nulls,
// times, decimals, enums), and it weighs exactly the coupons ent's query of the wallet finds.
func TestApplicableReadsTheWalletAsEnt(t *testing.T) {
	st := stack.New(t, pkg, "wallet_read", stack.Options{})
	const u = 41
	tpl := tplWith(t, st, nil)
	coupons := give(t, st, tpl, u, 6, time.Now().Add(time.Hour))
	give(t, st, tpl, u, 2, time.Now().Add(-time.Minute)) // past their end: EXPIRED quotes
	for i, c := range coupons[:3] {                      // LOCKED (order and discount set), then USED (not weighed), then LOCKED again
		if _, err := st.Checkout.Lock(st.Ctx, user(u), c.ID, order(int64(100+i), "20.00")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Checkout.Confirm(st.Ctx, orders, 101, coupons[1].ID, dec("20.00")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Checkout.Release(st.Ctx, user(u), 102, coupons[2].ID); err != nil { // UNUSED, order cleared
		t.Fatal(err)
	}
	quotes, err := st.Checkout.Applicable(st.Ctx, user(u), order(100, "20.00"))
	if err != nil {
		t.Fatal(err)
	}
	columns := []string{usercoupon.FieldID, usercoupon.FieldCreatedAt, usercoupon.FieldUserID, usercoupon.FieldTemplateID,
		usercoupon.FieldReceiveCount, usercoupon.FieldSource, usercoupon.FieldStatus, usercoupon.FieldValidStartTime,
		usercoupon.FieldValidEndTime, usercoupon.FieldOrderID, usercoupon.FieldUsedAt, usercoupon.FieldDiscountAmount}
	want, err := st.DB.UserCoupon.Query().
		Where(usercoupon.UserID(u), usercoupon.StatusIn(usercoupon.StatusUNUSED, usercoupon.StatusLOCKED)).
		Order(usercoupon.ByValidEndTime(), usercoupon.ByID()).Limit(checkout.MaxWallet).
		Select(columns...).All(st.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(quotes) != len(want) || len(want) != 7 {
		t.Fatalf("%d quotes, ent finds %d coupons (want 7)", len(quotes), len(want))
	}
	got := map[int64]string{}
	for _, q := range quotes {
		got[q.Coupon.ID] = shown(q.Coupon)
	}
	locked := 0
	for _, w := range want {
		if got[w.ID] != shown(w) {
			t.Errorf("coupon %d:\n got %s\nwant %s", w.ID, got[w.ID], shown(w))
		}
		if w.OrderID != nil {
			locked++
		}
	}
	if locked != 1 || !slices.ContainsFunc(quotes, func(q checkout.Quote) bool { return q.Coupon.DiscountAmount != nil }) {
		t.Fatalf("want one coupon with an order and a discount among the quotes, have %d", locked)
	}
}

// shown is every field of c a quote reads, nulls shown as such.
func shown(c *ent.UserCoupon) string {
	if c == nil {
		return "<none>"
	}
	orderID, usedAt, discount := "null", "null", "null"
	if c.OrderID != nil {
		orderID = fmt.Sprint(*c.OrderID)
	}
	if c.UsedAt != nil {
		usedAt = c.UsedAt.Format(time.RFC3339Nano) + c.UsedAt.Location().String()
	}
	if c.DiscountAmount != nil {
		discount = c.DiscountAmount.String() + "/" + fmt.Sprint(c.DiscountAmount.Exponent())
	}
	return fmt.Sprintf("id=%d created=%s%s user=%d template=%d n=%d source=%s status=%s start=%s%s end=%s%s order=%s used=%s discount=%s",
		c.ID, c.CreatedAt.Format(time.RFC3339Nano), c.CreatedAt.Location(), c.UserID, c.TemplateID, c.ReceiveCount, c.Source, c.Status,
		c.ValidStartTime.Format(time.RFC3339Nano), c.ValidStartTime.Location(), c.ValidEndTime.Format(time.RFC3339Nano), c.ValidEndTime.Location(),
		orderID, usedAt, discount)
}
