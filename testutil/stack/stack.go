// Package stack builds the whole service graph for tests, on real MySQL, Redis and asynq, with
// the wiring the server uses (services.New). It is separate from testutil because it imports the
// domain packages, whose own internal tests use testutil.
package stack

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/distribution"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/jobs"
	"coupond/services"
	"coupond/testutil"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"
)

// Options choose what runs beside the services.
type Options struct {
	Config services.Config
	Worker bool // run an asynq worker (all queues, 4 goroutines) over the services' task handlers
	Kick   bool // run the redeemer's kicker, which hands new claims to the persister
	// Redis, when set, holds the coupon data instead of testutil.Redis's client (a cluster the
	// test started for itself: testutil.StartOwnCluster); the namespace is still testutil.Redis's.
	Redis redis.UniversalClient
	// PlainCheckout runs the checkout's transactions on the main pool, their statements one by one
	// (checkout.Config.DB nil), instead of on its own pool as the server does.
	PlainCheckout bool
}

// Stack is the services of one test with their stores.
type Stack struct {
	*services.Services
	Ctx   context.Context
	DB    *ent.Client
	SQL   *sql.DB // the same database, for statements ent does not make
	Redis redis.UniversalClient
}

// Merchant is the merchant (shop 1001) that Template creates templates for.
var Merchant = coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}

// Orders is the order system: the SERVICE that confirms payments and refunds.
var Orders = coupon.Actor{Role: coupon.RoleService, Service: "orders"}

// New builds the services on a fresh database coupond_t_<pkg>_<name> and the Redis namespace of
// pkg (testutil.Redis), and starts what o asks for; all of it stops when the test ends.
func New(t testing.TB, pkg, name string, o Options) *Stack {
	t.Helper()
	db, sqlDB, dsn := testutil.MySQL(t, pkg+"_"+name)
	rdb := testutil.Redis(t, pkg)
	if o.Redis != nil {
		rdb = o.Redis
	}
	client := asynq.NewClient(testutil.QueueOpt())
	t.Cleanup(func() { client.Close() })
	if o.Config.Files == nil {
		o.Config.Files = TempFiles(t)
	}
	if o.Config.Checkout.DB == nil && !o.PlainCheckout { // the checkout's own pool, as the server opens it
		o.Config.Checkout.DB = testutil.ReadCommitted(t, dsn)
	}
	if o.Config.Redeem.TemplateRate == 0 {
		o.Config.Redeem.TemplateRate = 1e9 // tests measure the books, not the token bucket
	}
	s := &Stack{Services: services.New(db, rdb, jobs.NewQueue(client), o.Config), Ctx: context.Background(), DB: db, SQL: sqlDB, Redis: rdb}
	if o.Worker {
		s.StartWorker(t)
	}
	if o.Kick {
		ctx, cancel := context.WithCancel(s.Ctx)
		t.Cleanup(cancel)
		go s.Redeemer.Run(ctx)
	}
	return s
}

// TempFiles is a file:// bucket of distribution uploads in a directory removed when the test ends.
func TempFiles(t testing.TB) *distribution.Files {
	t.Helper()
	f, err := distribution.OpenFiles(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// StartWorker runs an asynq worker (all queues, 4 goroutines) over the services' task handlers,
// configured as the server's (jobs.IsFailure, jobs.RetryDelay), until the test ends.
func (s *Stack) StartWorker(t testing.TB) {
	t.Helper()
	srv := asynq.NewServer(testutil.QueueOpt(), asynq.Config{
		Concurrency: 4, Queues: jobs.Queues(), Logger: quiet{}, LogLevel: asynq.FatalLevel,
		IsFailure: jobs.IsFailure, RetryDelayFunc: jobs.RetryDelay, ShutdownTimeout: 5 * time.Second,
		DelayedTaskCheckInterval: jobs.DelayedTaskCheck, TaskCheckInterval: jobs.TaskCheck,
	})
	if err := srv.Start(s.Mux()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
}

// Template creates an open FIXED_OFF template of Merchant's shop (claimable from a minute ago for
// an hour) with the given stock and per-person limit; mutate, when not nil, changes the input first.
func (s *Stack) Template(t testing.TB, stock, limit int, mutate func(*template.CreateInput)) *coupon.Template {
	t.Helper()
	now := time.Now()
	five := decimal.NewFromInt(5)
	in := template.CreateInput{
		Name: "flash", Source: coupontemplate.SourceSHOP, Target: coupontemplate.TargetSHOP_WIDE,
		Type: coupontemplate.TypeFIXED_OFF, ValidStartTime: now.Add(-time.Minute), ValidEndTime: now.Add(time.Hour),
		Stock: stock, LimitPerPerson: limit, DiscountAmount: &five,
	}
	if mutate != nil {
		mutate(&in)
	}
	tpl, err := s.Templates.Create(s.Ctx, Merchant, in)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// quiet drops asynq's logs.
type quiet struct{}

func (quiet) Debug(...any) {}
func (quiet) Info(...any)  {}
func (quiet) Warn(...any)  {}
func (quiet) Error(...any) {}
func (quiet) Fatal(...any) {}
