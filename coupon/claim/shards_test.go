package claim_test

import (
	"errors"
	"testing"
	"time"

	"coupond/coupon/claim"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/coupon/reconcile"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/services"
	"coupond/store"
	"coupond/testutil/stack"
)

// crash is the panic a step hook throws to stop a persister between two transactions, as a
// kill -9 would (nothing after the step runs; what committed stays).
type crash struct{}

// A batch over four user shards is T1, four T2s and T3. The persister dies after T1, after the
// 2nd T2, or after the last T2; a new persister then takes the claims over (put off while the
// stock is short and the dead batch's header still holds units), the sweep settles the dead
// header from the coupons it finds, and the books are exact: every accepted claim ISSUED once,
// coupons = stock consumed = the template's issued, nobody over the limit, no OPEN header, Redis
// and MySQL stock equal, the reconciliation balanced.
func TestCrashBetweenShardTransactionsKeepsTheBooks(t *testing.T) {
	for _, c := range []struct {
		name   string
		at     string // the step after which the persister dies
		nth    int    // its occurrence
		stock  int
		claims int // of which Redis accepts min(claims, stock)
	}{
		{"after T1", "reserved", 1, 100, 60},
		{"after the 2nd of 4 T2s", "written", 2, 100, 60},
		{"after the last T2", "written", 4, 100, 60},
		{"after T1, stock short", "reserved", 1, 45, 60},
		{"after the 2nd T2, stock short", "written", 2, 45, 60},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := stack.New(t, "claim", "shards", stack.Options{Config: services.Config{
				Persist: claim.PersistConfig{BatchSize: 60, ClaimIdle: time.Millisecond, UserShards: 4, SweepAfter: 50 * time.Millisecond},
			}})
			tpl := s.Template(t, c.stock, 2, nil)
			var users []int64
			for i := range c.claims {
				u := int64(1 + i%40) // users 1…20 claim twice
				if _, err := s.Redeemer.Redeem(s.Ctx, u, tpl.ID, ""); err == nil {
					users = append(users, u)
				}
			}
			if want := min(c.claims, c.stock); len(users) != want {
				t.Fatalf("Redis accepted %d claims, want %d", len(users), want)
			}
			groups := map[int]bool{}
			for _, u := range users {
				groups[store.UserShard(u, 4)] = true
			}
			if len(groups) != 4 {
				t.Fatalf("the claims' users fall in %d of 4 shards", len(groups))
			}
			seen := 0
			s.Persister.OnStep(func(step string) {
				if step == c.at {
					if seen++; seen == c.nth {
						panic(crash{})
					}
				}
			})
			func() {
				defer func() {
					if r := recover(); r != (crash{}) {
						t.Fatalf("the persister did not die at %s #%d: %v", c.at, c.nth, r)
					}
				}()
				_, _ = s.Persister.Drain(s.Ctx, tpl.ID)
			}()
			s.Persister.OnStep(nil)
			// The dead batch's header is OPEN and some of its T2s committed: a reconciliation
			// reading one user shard at a time counts each unit once.
			if rep, err := reconcile.New(s.DB, s.Redis, reconcile.Config{UserShards: 4}).Check(s.Ctx, stack.Merchant, tpl.ID); err != nil || !rep.Balanced {
				t.Fatalf("reconciliation beside the dead header: %+v, %v", rep, err)
			}

			// Restart: a persister takes the claims over; while the stock is short and the dead
			// header is OPEN it is put off (issue.ErrBusy), and the sweep settles that header.
			time.Sleep(60 * time.Millisecond)
			_, err := s.Persister.Drain(s.Ctx, tpl.ID)
			if c.stock < c.claims && c.at == "reserved" && !errors.Is(err, issue.ErrBusy) {
				t.Fatalf("drain beside the dead header with the stock short: %v, want ErrBusy", err)
			}
			if _, err := s.Persister.SweepBatches(s.Ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Persister.Drain(s.Ctx, tpl.ID); err != nil {
				t.Fatal(err)
			}
			if open, err := s.DB.StockBatch.Query().Where(stockbatch.TemplateID(tpl.ID), stockbatch.StateEQ(stockbatch.StateOPEN)).Count(s.Ctx); err != nil || open != 0 {
				t.Fatalf("OPEN headers after the sweep: %d, %v", open, err)
			}
			coupons, row, _ := mysqlBooks(t, s, tpl.ID, 2)
			if len(coupons) != len(users) || row.TotalStock-row.Stock != len(coupons) || row.Issued != len(coupons) {
				t.Fatalf("coupons %d for %d accepted claims; stock consumed %d, issued %d", len(coupons), len(users), row.TotalStock-row.Stock, row.Issued)
			}
			if got, err := s.Redis.HGet(s.Ctx, keys.Template(tpl.ID), "stock").Int(); err != nil || got != row.Stock {
				t.Fatalf("Redis stock %d (%v), MySQL %d", got, err, row.Stock)
			}
			rep, err := reconcile.New(s.DB, s.Redis, reconcile.Config{UserShards: 4}).Check(s.Ctx, stack.Merchant, tpl.ID)
			if err != nil || !rep.Balanced {
				t.Fatalf("reconciliation: %+v, %v", rep, err)
			}
		})
	}
}

// A persister that stalls between two of a batch's transactions longer than the sweep waits: the
// sweep fences the header's share of every shard and settles it from the coupons it finds; the
// stalled persister's next T2 then fails with issue.ErrFenced and writes nothing, the next drain
// writes the claims, and the books are exact (no coupon whose unit the sweep gave back).
func TestSweepFencesAStalledWrite(t *testing.T) {
	for _, c := range []struct {
		name string
		at   string // the step the persister stalls after
		nth  int
		used int // the units the swept header keeps: its groups written before the stall
	}{
		{"after T1", "reserved", 1, 0},
		{"after the 2nd of 4 T2s", "written", 2, -1}, // -1: whatever the first two groups hold
	} {
		t.Run(c.name, func(t *testing.T) {
			s := stack.New(t, "claim", "fence", stack.Options{Config: services.Config{
				Persist: claim.PersistConfig{BatchSize: 60, ClaimIdle: time.Millisecond, UserShards: 4, SweepAfter: 50 * time.Millisecond},
			}})
			tpl := s.Template(t, 100, 2, nil)
			accepted := 0
			for i := range 60 {
				if _, err := s.Redeemer.Redeem(s.Ctx, int64(1+i%40), tpl.ID, ""); err == nil {
					accepted++
				}
			}
			stalled, release := make(chan struct{}), make(chan struct{})
			seen := 0
			s.Persister.OnStep(func(step string) {
				if step == c.at {
					if seen++; seen == c.nth {
						close(stalled)
						<-release
					}
				}
			})
			done := make(chan error, 1)
			go func() {
				_, err := s.Persister.Drain(s.Ctx, tpl.ID)
				done <- err
			}()
			<-stalled
			time.Sleep(60 * time.Millisecond)
			if n, err := s.Persister.SweepBatches(s.Ctx); err != nil || n != 1 {
				t.Fatalf("sweep settled %d headers (%v), want the stalled one", n, err)
			}
			swept, err := s.DB.StockBatch.Query().Where(stockbatch.TemplateID(tpl.ID)).Only(s.Ctx)
			if err != nil {
				t.Fatal(err)
			}
			close(release)
			if err := <-done; !errors.Is(err, issue.ErrFenced) {
				t.Fatalf("the stalled persister's next T2: %v, want ErrFenced", err)
			}
			s.Persister.OnStep(nil)
			if n, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(tpl.ID), usercoupon.StockBatchID(swept.ID)).Count(s.Ctx); err != nil || n != swept.Used {
				t.Fatalf("coupons carrying the swept header: %d (%v), it settled %d", n, err, swept.Used)
			}
			if c.used >= 0 && swept.Used != c.used {
				t.Fatalf("the swept header kept %d units, want %d", swept.Used, c.used)
			}
			if _, err := s.Persister.Drain(s.Ctx, tpl.ID); err != nil {
				t.Fatal(err)
			}
			coupons, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(tpl.ID)).Count(s.Ctx)
			if err != nil {
				t.Fatal(err)
			}
			row, err := s.DB.CouponTemplate.Get(s.Ctx, tpl.ID)
			if err != nil {
				t.Fatal(err)
			}
			if coupons != accepted || row.TotalStock-row.Stock != coupons || row.Issued != coupons {
				t.Fatalf("coupons %d for %d accepted claims; stock consumed %d, issued %d", coupons, accepted, row.TotalStock-row.Stock, row.Issued)
			}
			rep, err := reconcile.New(s.DB, s.Redis, reconcile.Config{UserShards: 4}).Check(s.Ctx, stack.Merchant, tpl.ID)
			if err != nil || !rep.Balanced {
				t.Fatalf("reconciliation: %+v, %v", rep, err)
			}
		})
	}
}
