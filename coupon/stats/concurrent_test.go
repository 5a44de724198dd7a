package stats_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/testutil/stack"
)

// Claims (redeem script + persister drains), checkout transitions (each repeated by two racing
// callers: lock, pay or release, lock again, pay, refund) and the roll-up all run at once; then
// the realtime stats, and the rows the roll-up writes, equal SQL's counts, locks included.
func TestBooksBalanceUnderConcurrency(t *testing.T) {
	st := stack.New(t, "stats", "concurrent", stack.Options{})
	tpl := st.Template(t, 1000, 3, nil)
	var first []int64
	for u := int64(1); u <= 40; u++ {
		first = append(first, u)
	}
	claim(t, st, tpl.ID, first...)
	ctx, cancel := context.WithCancel(st.Ctx)
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	loop := func(f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := f(); err != nil && ctx.Err() == nil {
					errs <- err
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	loop(func() error { _, err := st.Stats.RollUp(st.Ctx); return err })
	loop(func() error { _, err := st.Persister.Drain(st.Ctx, tpl.ID); return err })
	var claimers sync.WaitGroup
	for g := int64(0); g < 4; g++ {
		claimers.Add(1)
		go func() {
			defer claimers.Done()
			for i := int64(0); i < 40; i++ {
				u := 1000 + g*100 + i
				if _, err := st.Redeemer.Redeem(st.Ctx, u, tpl.ID, fmt.Sprintf("c-%d", u)); err != nil {
					errs <- err
				}
			}
		}()
	}
	var buyers sync.WaitGroup
	for i, u := range first {
		c := couponOf(t, st, tpl.ID, u)
		o := int64(7000 + i)
		for range 2 { // two racing callers repeat each step
			buyers.Add(1)
			go func() {
				defer buyers.Done()
				step := func(name string, f func() error) {
					err := f()
					switch {
					case err == nil:
					case coupon.AsErrors(err) != nil: // the racing twin won: a refusal, part of the game
					default:
						t.Logf("%s coupon %d: untyped error from checkout under a race: %v", name, c, err)
					}
				}
				step("lock", func() error { _, err := st.Checkout.Lock(st.Ctx, user(u), c, order(o)); return err })
				switch i % 4 {
				case 0: // stays locked
				case 1:
					step("pay", func() error { _, err := st.Checkout.Confirm(st.Ctx, stack.Orders, o, c, order(o).Amount); return err })
				case 2:
					step("pay", func() error { _, err := st.Checkout.Confirm(st.Ctx, stack.Orders, o, c, order(o).Amount); return err })
					step("refund", func() error { _, err := st.Checkout.Refund(st.Ctx, stack.Orders, o, c); return err })
				case 3:
					step("release", func() error { _, err := st.Checkout.Release(st.Ctx, user(u), o, c); return err })
					step("lock again", func() error { _, err := st.Checkout.Lock(st.Ctx, user(u), c, order(o)); return err })
					if i%8 == 3 {
						step("pay", func() error { _, err := st.Checkout.Confirm(st.Ctx, stack.Orders, o, c, order(o).Amount); return err })
					}
				}
			}()
		}
	}
	claimers.Wait()
	buyers.Wait()
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, err := st.Persister.Drain(st.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	got := checkAgainstSQL(t, st, tpl.ID, "after the race")
	if got.IssuedCount() != 200 || got.LockedCount < 10 || got.Total.Used < 10 || got.Total.Refunded != 10 {
		t.Errorf("issued %d, locked %d, used %d, refunded %d; want 200, ≥ 10, ≥ 10, 10", got.IssuedCount(), got.LockedCount, got.Total.Used, got.Total.Refunded)
	}
	if _, err := st.Stats.RollUp(st.Ctx); err != nil {
		t.Fatal(err)
	}
	flush(t, st) // the rows alone now: the roll-up copied the counters exactly
	got, err := st.Stats.TemplateStats(st.Ctx, platform, tpl.ID, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := sqlTruth(t, st.SQL, tpl.ID)
	for _, d := range got.Daily {
		if d.Counts != want.days[d.Date] {
			t.Errorf("rolled-up row of %s: %+v, SQL %+v", d.Date, d.Counts, want.days[d.Date])
		}
	}
}
