package jobs_test

import (
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/jobs"
	"coupond/services"
	"coupond/testutil"
	"coupond/testutil/stack"

	"entgo.io/ent/dialect/sql"
	"github.com/hibiken/asynq"
)

// e2e is the whole claim path on real MySQL, Redis and asynq: redeemer, queue, worker.
type e2e struct{ *stack.Stack }

func newE2E(t *testing.T, name string, mode claim.Mode, kick bool) *e2e {
	t.Helper()
	return &e2e{stack.New(t, "jobs", name, stack.Options{
		Config: services.Config{
			Redeem:  claim.Config{Mode: mode, UserRate: 100, KickEvery: 10 * time.Millisecond},
			Persist: claim.PersistConfig{BatchSize: 100},
		},
		Worker: true, Kick: kick,
	})}
}

func (s *e2e) template(t *testing.T, stock, limit int) int64 {
	t.Helper()
	return s.Template(t, stock, limit, nil).ID
}

// waitPersisted waits until n coupons of the template are in MySQL and its outbox is empty.
func (s *e2e) waitPersisted(t *testing.T, id int64, n int) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		got, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(id)).Count(s.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		left, _ := s.Redis.XLen(s.Ctx, keys.Outbox(id)).Result()
		if got == n && left == 0 {
			return time.Since(start)
		}
		if got > n {
			t.Fatalf("%d coupons persisted, more than the %d accepted", got, n)
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("after 30s: %d of %d coupons persisted, %d left in the outbox", got, n, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBooksBalanceUnderConcurrentClaims: 2,000 users each fire 3 concurrent claims at a template
// with stock 500 and limit 2. Exactly 500 are accepted and persisted, both stocks end at 0, no
// user holds more than 2, and every accepted redemption ends ISSUED.
func TestBooksBalanceUnderConcurrentClaims(t *testing.T) {
	for _, mode := range []claim.Mode{claim.ModeAsync, claim.ModeSync} {
		t.Run(string(mode), func(t *testing.T) {
			s := newE2E(t, "books_"+string(mode), mode, true)
			id := s.template(t, 500, 2)
			const users, perUser = 2000, 3
			type accepted struct {
				user int64
				rid  string
			}
			var mu sync.Mutex
			var got []accepted
			refusals := map[coupon.Code]int{}
			var wg sync.WaitGroup
			sem := make(chan struct{}, 64) // 64 claims in flight at a time
			for u := int64(1); u <= users; u++ {
				for range perUser {
					wg.Add(1)
					sem <- struct{}{}
					go func() {
						defer func() { <-sem; wg.Done() }()
						red, err := s.Redeemer.Redeem(s.Ctx, u, id, "")
						mu.Lock()
						defer mu.Unlock()
						if err != nil {
							errs := coupon.AsErrors(err)
							if errs == nil {
								t.Errorf("user %d: %v", u, err)
								return
							}
							refusals[errs[0].Code]++
							return
						}
						got = append(got, accepted{u, red.ID})
					}()
				}
			}
			wg.Wait()
			if len(got) != 500 {
				t.Fatalf("%d claims accepted, want exactly 500 (refusals %v)", len(got), refusals)
			}
			if refusals[coupon.CodeOutOfStock]+refusals[coupon.CodeLimitReached] != users*perUser-500 {
				t.Fatalf("refusals %v do not account for the other %d claims", refusals, users*perUser-500)
			}
			s.waitPersisted(t, id, 500)

			row, _ := s.DB.CouponTemplate.Get(s.Ctx, id)
			redisStock, _ := s.Redis.HGet(s.Ctx, keys.Template(id), "stock").Int()
			if row.Stock != 0 || redisStock != 0 {
				t.Fatalf("DB stock %d, Redis stock %d; want 0 and 0", row.Stock, redisStock)
			}
			var perUserMax []struct {
				UserID int64 `json:"user_id"`
				Count  int   `json:"count"`
			}
			err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(id)).
				GroupBy(usercoupon.FieldUserID).Aggregate(ent.Count()).
				Scan(s.Ctx, &perUserMax)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range perUserMax {
				if u.Count > 2 {
					t.Fatalf("user %d holds %d coupons, limit 2", u.UserID, u.Count)
				}
			}
			for _, a := range got {
				red, err := s.Redeemer.Redemption(s.Ctx, a.user, a.rid)
				if err != nil || red.Status != claim.RedemptionIssued {
					t.Fatalf("redemption %s of user %d = %+v, %v; want ISSUED", a.rid, a.user, red, err)
				}
			}
		})
	}
}

// TestPeriodicDrainPersistsClaimsWhoseEnqueueWasLost: no kicker runs (the process that accepted
// the claims died, or its enqueue failed); the periodic drain task finds the outbox and persists it.
func TestPeriodicDrainPersistsClaimsWhoseEnqueueWasLost(t *testing.T) {
	s := newE2E(t, "lost_enqueue", claim.ModeAsync, false)
	id := s.template(t, 50, 1)
	for u := int64(1); u <= 20; u++ {
		if _, err := s.Redeemer.Redeem(s.Ctx, u, id, ""); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n, _ := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(id)).Count(s.Ctx); n != 0 {
		t.Fatalf("%d coupons persisted without any enqueue", n)
	}
	client := asynq.NewClient(testutil.QueueOpt())
	defer client.Close()
	if _, err := client.Enqueue(jobs.NewDrainOutboxesTask(), asynq.Queue(jobs.QueueName(jobs.QueueCritical))); err != nil {
		t.Fatal(err)
	}
	s.waitPersisted(t, id, 20)
}

func TestRedeemCodesOrderOfCoupons(t *testing.T) {
	s := newE2E(t, "codes", claim.ModeSync, false)
	id := s.template(t, 5, 5)
	for range 3 {
		if _, err := s.Redeemer.Redeem(s.Ctx, 9, id, ""); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.DB.UserCoupon.Query().Where(usercoupon.UserID(9)).Order(usercoupon.ByReceiveCount(sql.OrderAsc())).All(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d coupons, want 3", len(rows))
	}
	for i, r := range rows { // the codes are derived from the ids: coupon/code's tests
		if r.ReceiveCount != i+1 {
			t.Fatalf("coupon %d: receive_count %d, want %d", i, r.ReceiveCount, i+1)
		}
	}
}
