package jobs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/usercoupon"
	"coupond/jobs"
	"coupond/testutil"

	"entgo.io/ent/dialect/sql"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"
)

// stack is the whole claim path on real MySQL, Redis and asynq: redeemer, queue, worker.
type stack struct {
	ctx      context.Context
	db       *ent.Client
	rdb      *redis.Client
	admin    *coupon.TemplateAdmin
	redeemer *coupon.Redeemer
	deps     jobs.Deps
}

func newStack(t *testing.T, name string, mode coupon.RedeemMode, kick bool) *stack {
	t.Helper()
	db, _, _ := testutil.MySQL(t, "jobs_"+name)
	rdb := testutil.Redis(t, testutil.RedisDBJobs)
	opt := asynq.RedisClientOpt{Addr: testutil.RedisAddr(), DB: testutil.RedisDBJobs}
	client := asynq.NewClient(opt)
	t.Cleanup(func() { client.Close() })
	queue := jobs.NewQueue(client)
	cache := coupon.NewTemplateCache(rdb, db, coupon.CacheOptions{})
	expirer := coupon.NewExpirer(db, rdb)
	s := &stack{ctx: context.Background(), db: db, rdb: rdb, admin: coupon.NewTemplateAdmin(db, rdb, cache)}
	s.redeemer = coupon.NewRedeemer(db, rdb, cache, expirer, queue, coupon.RedeemConfig{
		Mode: mode, TemplateRate: 1e9, UserRate: 100, KickEvery: 10 * time.Millisecond,
	})
	s.deps = jobs.Deps{
		Persister: coupon.NewPersister(db, rdb, expirer, queue, coupon.PersistConfig{BatchSize: 100}),
		Expirer:   expirer, Queue: queue,
	}
	srv := asynq.NewServer(opt, asynq.Config{Concurrency: 4, Logger: quiet{}, LogLevel: asynq.FatalLevel})
	mux := asynq.NewServeMux()
	jobs.Register(mux, s.deps)
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	if kick {
		ctx, cancel := context.WithCancel(s.ctx)
		t.Cleanup(cancel)
		go s.redeemer.Run(ctx)
	}
	return s
}

type quiet struct{}

func (quiet) Debug(...any) {}
func (quiet) Info(...any)  {}
func (quiet) Warn(...any)  {}
func (quiet) Error(...any) {}
func (quiet) Fatal(...any) {}

func (s *stack) template(t *testing.T, stock, limit int) int64 {
	t.Helper()
	now := time.Now()
	tpl, err := s.admin.Create(s.ctx, coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}, coupon.CreateTemplateInput{
		Name: "flash", Source: coupontemplate.SourceSHOP, Target: coupontemplate.TargetSHOP_WIDE,
		Type: coupontemplate.TypeFIXED_OFF, ValidStartTime: now.Add(-time.Minute), ValidEndTime: now.Add(time.Hour),
		Stock: stock, LimitPerPerson: limit, DiscountAmount: ptr(decimal.NewFromInt(5)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tpl.ID
}

// waitPersisted waits until n coupons of the template are in MySQL and its outbox is empty.
func (s *stack) waitPersisted(t *testing.T, id int64, n int) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		got, err := s.db.UserCoupon.Query().Where(usercoupon.TemplateID(id)).Count(s.ctx)
		if err != nil {
			t.Fatal(err)
		}
		left, _ := s.rdb.XLen(s.ctx, coupon.OutboxKey(id)).Result()
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
	for _, mode := range []coupon.RedeemMode{coupon.RedeemAsync, coupon.RedeemSync} {
		t.Run(string(mode), func(t *testing.T) {
			s := newStack(t, "books_"+string(mode), mode, true)
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
						red, err := s.redeemer.Redeem(s.ctx, u, id, "")
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

			row, _ := s.db.CouponTemplate.Get(s.ctx, id)
			redisStock, _ := s.rdb.HGet(s.ctx, coupon.TemplateKey(id), "stock").Int()
			if row.Stock != 0 || redisStock != 0 {
				t.Fatalf("DB stock %d, Redis stock %d; want 0 and 0", row.Stock, redisStock)
			}
			var perUserMax []struct {
				UserID int64 `json:"user_id"`
				Count  int   `json:"count"`
			}
			err := s.db.UserCoupon.Query().Where(usercoupon.TemplateID(id)).
				GroupBy(usercoupon.FieldUserID).Aggregate(ent.Count()).
				Scan(s.ctx, &perUserMax)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range perUserMax {
				if u.Count > 2 {
					t.Fatalf("user %d holds %d coupons, limit 2", u.UserID, u.Count)
				}
			}
			for _, a := range got {
				red, err := s.redeemer.Redemption(s.ctx, a.user, a.rid)
				if err != nil || red.Status != coupon.RedemptionIssued {
					t.Fatalf("redemption %s of user %d = %+v, %v; want ISSUED", a.rid, a.user, red, err)
				}
			}
		})
	}
}

// TestPeriodicDrainPersistsClaimsWhoseEnqueueWasLost: no kicker runs (the process that accepted
// the claims died, or its enqueue failed); the periodic drain task finds the outbox and persists it.
func TestPeriodicDrainPersistsClaimsWhoseEnqueueWasLost(t *testing.T) {
	s := newStack(t, "lost_enqueue", coupon.RedeemAsync, false)
	id := s.template(t, 50, 1)
	for u := int64(1); u <= 20; u++ {
		if _, err := s.redeemer.Redeem(s.ctx, u, id, ""); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n, _ := s.db.UserCoupon.Query().Where(usercoupon.TemplateID(id)).Count(s.ctx); n != 0 {
		t.Fatalf("%d coupons persisted without any enqueue", n)
	}
	client := asynq.NewClient(asynq.RedisClientOpt{Addr: testutil.RedisAddr(), DB: testutil.RedisDBJobs})
	defer client.Close()
	if _, err := client.Enqueue(jobs.NewDrainOutboxesTask()); err != nil {
		t.Fatal(err)
	}
	s.waitPersisted(t, id, 20)
}

func TestRedeemCodesOrderOfCoupons(t *testing.T) {
	s := newStack(t, "codes", coupon.RedeemSync, false)
	id := s.template(t, 5, 5)
	for range 3 {
		if _, err := s.redeemer.Redeem(s.ctx, 9, id, ""); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.db.UserCoupon.Query().Where(usercoupon.UserID(9)).Order(usercoupon.ByReceiveCount(sql.OrderAsc())).All(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]bool{}
	for i, r := range rows {
		if r.ReceiveCount != i+1 || len(r.Code) != 16 || codes[r.Code] {
			t.Fatalf("coupon %d: receive_count %d code %q; want %d and a fresh 16-character code", i, r.ReceiveCount, r.Code, i+1)
		}
		codes[r.Code] = true
	}
}

func ptr[T any](v T) *T { return &v }
