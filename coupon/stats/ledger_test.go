package stats_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	couponclaim "coupond/coupon/claim"
	"coupond/coupon/distribution"
	"coupond/coupon/issue"
	"coupond/ent"
	"coupond/ent/coupontask"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/services"
	"coupond/testutil/stack"
)

// The sealed day equals what happened, exactly, when everything that issues or expires coupons
// runs at once over 4 user shards: claims (redeem script + persister drains), a distribution, the
// expiry sweep twice in parallel over coupons ended meanwhile, checkout releases that find their
// coupon past its end (EXPIRED in the release's transaction), and a claim batch whose persister
// died between its T2s and T3, settled by two racing sweeps (issue.Abandon) and then replayed
// (its late T3 writes nothing); then the archive moves the expired coupons out. The issued and
// expired figures come from the ledgers alone (coupon/stats reads no coupon).
func TestSealedDayEqualsWhatHappened(t *testing.T) {
	const shards = 4
	st := stack.New(t, "stats", "ledger", stack.Options{Config: services.Config{
		Persist: couponclaim.PersistConfig{UserShards: shards}, Distribution: distribution.Config{UserShards: shards}, ExpiryUserShards: shards}})
	tpl := st.Template(t, 1000, 3, nil)
	var first []int64
	for u := int64(1); u <= 40; u++ {
		first = append(first, u)
	}
	claim(t, st, tpl.ID, first...)
	for i, u := range first[:5] { // locked now, released after their end below
		if _, err := st.Checkout.Lock(st.Ctx, user(u), couponOf(t, st, tpl.ID, u), order(int64(9000+i))); err != nil {
			t.Fatal(err)
		}
	}
	end := func(users []int64, status usercoupon.Status) {
		n, err := st.DB.UserCoupon.Update().Where(usercoupon.TemplateID(tpl.ID), usercoupon.UserIDIn(users...), usercoupon.StatusEQ(status)).
			SetValidEndTime(time.Now().Add(-2 * time.Minute)).Save(st.Ctx)
		if err != nil || n != len(users) {
			t.Errorf("end the coupons of %v: %d %v", users, n, err)
		}
	}

	errs := make(chan error, 1000)
	var wg sync.WaitGroup
	run := func(f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil {
				errs <- err
			}
		}()
	}
	stop := make(chan struct{})
	var drains sync.WaitGroup
	drains.Add(1)
	go func() { // the persister, draining until told to stop
		defer drains.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := st.Persister.Drain(st.Ctx, tpl.ID); err != nil {
				errs <- err
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	for g := int64(0); g < 4; g++ { // 160 claims
		run(func() error {
			for i := int64(0); i < 40; i++ {
				u := 1000 + g*100 + i
				if _, err := st.Redeemer.Redeem(st.Ctx, u, tpl.ID, fmt.Sprintf("l-%d", u)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	run(func() error { // 60 distributed
		var b strings.Builder
		b.WriteString("userId\n")
		for u := 3000; u < 3060; u++ {
			fmt.Fprintf(&b, "%d\n", u)
		}
		task, err := st.Distribution.Create(st.Ctx, stack.Merchant, distribution.CreateInput{TemplateID: tpl.ID, Name: "push",
			SendType: coupontask.SendTypeIMMEDIATE, FileName: "users.csv", File: strings.NewReader(b.String())})
		if err != nil {
			return err
		}
		return st.Distribution.Run(st.Ctx, task.ID)
	})
	run(func() error { // 30 expired by the sweep, in three rounds of two racing sweeps
		for r := range 3 {
			end(first[10+10*r:20+10*r], usercoupon.StatusUNUSED)
			var sweeps sync.WaitGroup
			for range 2 {
				sweeps.Add(1)
				go func() {
					defer sweeps.Done()
					if _, err := st.Expirer.Sweep(st.Ctx); err != nil {
						errs <- err
					}
				}()
			}
			sweeps.Wait()
		}
		return nil
	})
	run(func() error { // 5 expired by their release
		end(first[:5], usercoupon.StatusLOCKED)
		var releases sync.WaitGroup
		for i, u := range first[:5] {
			for range 2 { // two racing callers
				releases.Add(1)
				go func() {
					defer releases.Done()
					_, _ = st.Checkout.Release(st.Ctx, user(u), int64(9000+i), couponOf(t, st, tpl.ID, u)) // the twin's refusal is part of the game
				}()
			}
		}
		releases.Wait()
		return nil
	})
	var crashed []*ent.UserCoupon
	run(func() error { // 10 claims of a batch whose persister died before T3
		var items []issue.Item
		at := time.Now().UTC().Truncate(time.Millisecond)
		for u := int64(5000); u < 5010; u++ {
			items = append(items, issue.Item{Coupon: issue.Coupon{UserID: u, TemplateID: tpl.ID, RedemptionID: fmt.Sprintf("crash-%d", u),
				ReceiveCount: 1, Source: usercoupon.SourceCLAIM, At: at, End: at.Add(24 * time.Hour)}})
		}
		r, err := issue.Reserve(st.Ctx, st.DB, issue.ReserveSpec{TemplateID: tpl.ID, ShopNumber: tpl.ShopNumber, Source: stockbatch.SourceCLAIM, Items: items})
		if err != nil {
			return err
		}
		budget := r.Header.Reserved
		var carried []time.Time
		for _, g := range issue.Groups(items, shards) {
			w, err := issue.Write(st.Ctx, st.DB, r, g, budget, issue.WriteOptions{})
			if err != nil {
				return err
			}
			budget -= len(w.Carried)
			carried = append(carried, w.Carried...)
			crashed = append(crashed, w.Issued...)
		}
		var sweeps sync.WaitGroup
		settled := make(chan bool, 2)
		for range 2 {
			sweeps.Add(1)
			go func() {
				defer sweeps.Done()
				done, err := issue.Abandon(st.Ctx, st.DB, r.Header, shards)
				if err != nil {
					errs <- err
				}
				settled <- done
			}()
		}
		sweeps.Wait()
		if a, b := <-settled, <-settled; a == b {
			return fmt.Errorf("racing sweeps settled the header %v and %v times: want exactly once", a, b)
		}
		if err := issue.Settle(st.Ctx, st.DB, r.Header, issue.Settlement{Carried: carried}); !errors.Is(err, issue.ErrSettled) {
			return fmt.Errorf("the replayed T3: %v, want ErrSettled", err)
		}
		return nil
	})
	wg.Wait()
	close(stop)
	drains.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, err := st.Persister.Drain(st.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	// The crashed batch's claims were never in Redis's outbox: its follow-up counts them.
	if err := issue.CountIssued(st.Ctx, st.Redis, tpl.ID, crashed); err != nil {
		t.Fatal(err)
	}
	if moved := archiveDue(t, st); moved < 35 {
		t.Errorf("the archive moved %d coupons, want ≥ 35 (the expired ones)", moved)
	}

	// Two hours into tomorrow the roll-up seals today from MySQL; Redis then holds nothing of it.
	tomorrow := time.Now().Add(26 * time.Hour)
	st.Stats.SetNow(func() time.Time { return tomorrow })
	if res, err := st.Stats.RollUp(st.Ctx); err != nil || res.Sealed != 1 {
		t.Fatalf("seal: %+v %v", res, err)
	}
	flush(t, st)
	got := checkAgainstSQL(t, st, tpl.ID, "sealed")
	if c := got.Total; c.IssuedClaim != 210 || c.IssuedDistribution != 60 || c.Expired != 35 {
		t.Errorf("sealed: %d claimed, %d distributed, %d expired; want 210, 60, 35", c.IssuedClaim, c.IssuedDistribution, c.Expired)
	}
	var rows, perShard int
	if err := st.SQL.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT user_id) FROM expired_ledger WHERE template_id = ? AND user_id NOT IN (1, 2, 3, 4, 5)`,
		tpl.ID).Scan(&rows, &perShard); err != nil || perShard > shards {
		t.Errorf("the expirer's ledger rows: %d rows naming %d users (%v), want one user per shard (≤ %d)", rows, perShard, err, shards)
	}
}
