package checkout_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"coupond/coupon/checkout"
	"coupond/testutil/stack"
)

// TestClientTimeoutsLeaveTheBooksExact: locks and confirmations whose callers give up at random
// moments (a context cancelled from 1 to 15 ms in, some while a transaction's one-round-trip
// writes or its COMMIT are on the wire) leave every coupon and its settlements agreeing, and no
// connection of the checkout's pool holding a transaction; after them, each coupon can still be
// locked and paid to the end.
func TestClientTimeoutsLeaveTheBooksExact(t *testing.T) {
	st := stack.New(t, pkg, "timeouts", stack.Options{})
	tpl := tplWith(t, st, nil)
	coupons := give(t, st, tpl, 9, 40, time.Now().Add(time.Hour))
	var wg sync.WaitGroup
	for i, uc := range coupons {
		orderID := int64(500 + i)
		wg.Go(func() {
			for range 3 {
				ctx, cancel := context.WithTimeout(st.Ctx, time.Duration(1000+rand.IntN(14000))*time.Microsecond)
				_, _ = st.Checkout.Lock(ctx, user(9), uc.ID, order(orderID, "40"))
				_, _ = st.Checkout.Confirm(ctx, orders, orderID, uc.ID, dec("40"))
				cancel()
			}
		})
	}
	wg.Wait()
	// A connection the driver closed on a cancel is rolled back by MariaDB as it notices.
	deadline := time.Now().Add(5 * time.Second)
	for openTransactions(t, st) != 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	noOpenTransactions(t, st)
	for i, uc := range coupons {
		checkBooks(t, st, uc, false)
		orderID := int64(500 + i)
		var s *checkout.Settlement
		var err error
		if s, err = st.Checkout.Lock(st.Ctx, user(9), uc.ID, order(orderID, "40")); err == nil {
			s, err = st.Checkout.Confirm(st.Ctx, orders, orderID, uc.ID, dec("40"))
		}
		if err != nil || s.Status != "PAID" {
			t.Errorf("coupon %d after the timeouts: %+v, %v", uc.ID, s, err)
		}
		checkBooks(t, st, uc, false)
	}
}
