// Package services wires coupond's domain services over their stores. It is the one wiring: the
// server (app.go, for serve and demo) and the tests (testutil/stack) build the same graph.
package services

import (
	"coupond/coupon/archive"
	"coupond/coupon/checkout"
	"coupond/coupon/claim"
	"coupond/coupon/distribution"
	"coupond/coupon/expiry"
	"coupond/coupon/issue"
	"coupond/coupon/reconcile"
	"coupond/coupon/reminder"
	"coupond/coupon/stats"
	"coupond/coupon/template"
	"coupond/coupon/wallet"
	"coupond/ent"
	"coupond/jobs"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// Config tunes the services; zero fields take each service's defaults.
type Config struct {
	Redeem  claim.Config
	Persist claim.PersistConfig
	Cache   template.CacheOptions
	// Distribution tunes bulk distribution; Files is the bucket of its uploads (required).
	Distribution distribution.Config
	Files        *distribution.Files
	Checkout     checkout.Config
	Archive      archive.Config
	Reminder     reminder.Config
	// ReminderSender delivers reminders (nil: a reminder.LogSender only).
	ReminderSender reminder.Sender
	Stats          stats.Config
	Reconcile      reconcile.Config
	// ExpiryUserShards is the expirer's Expirer.UserShards (COUPON_MYSQL_USER_SHARDS).
	ExpiryUserShards int
	// StockShards is the Redis sub-stocks of a template created without stockShards
	// (COUPON_STOCK_SHARDS_DEFAULT; 0 means 1).
	StockShards int
}

// Services are the domain services of one process.
type Services struct {
	Cache     *template.Cache
	Templates *template.Admin
	Issuer    *issue.Issuer
	Expirer   *expiry.Expirer
	Persister *claim.Persister
	Redeemer  *claim.Redeemer
	Wallet    *wallet.Wallet
	Checkout  *checkout.Service
	Archiver  *archive.Archiver
	Reminders *reminder.Service
	Stats     *stats.Service
	Queue     *jobs.Queue

	Distribution *distribution.Service
	Reconciler   *reconcile.Reconciler
}

// New wires the services over the database, the data Redis and the task queue.
func New(db *ent.Client, rdb redis.UniversalClient, queue *jobs.Queue, cfg Config) *Services {
	s := &Services{Queue: queue}
	s.Cache = template.NewCache(rdb, db, cfg.Cache)
	s.Templates = template.NewAdmin(db, rdb, s.Cache)
	s.Templates.DefaultStockShards = cfg.StockShards
	s.Issuer = issue.NewIssuer(rdb, queue)
	s.Expirer = expiry.NewExpirer(db, rdb)
	s.Expirer.UserShards = cfg.ExpiryUserShards
	s.Persister = claim.NewPersister(db, rdb, s.Issuer, s.Cache, cfg.Persist)
	s.Redeemer = claim.NewRedeemer(db, rdb, s.Cache, s.Persister, queue, cfg.Redeem)
	s.Wallet = wallet.New(db)
	s.Distribution = distribution.New(db, rdb, s.Cache, s.Issuer, cfg.Files, queue, cfg.Distribution)
	s.Checkout = checkout.New(db, rdb, s.Cache, queue, cfg.Checkout)
	s.Archiver = archive.New(db, rdb, cfg.Archive)
	sender := cfg.ReminderSender
	if sender == nil {
		sender = reminder.LogSender{}
	}
	s.Reminders = reminder.New(db, rdb, s.Cache, queue, sender, cfg.Reminder)
	s.Stats = stats.New(db, rdb, s.Templates, cfg.Stats)
	s.Reconciler = reconcile.New(db, rdb, cfg.Reconcile)
	return s
}

// Mux is the asynq worker's mux over these services.
func (s *Services) Mux() *asynq.ServeMux {
	return jobs.NewMux(jobs.Handlers{
		Claim:        jobs.ClaimHandlers{Persister: s.Persister, Queue: s.Queue},
		Expiry:       jobs.ExpiryHandlers{Expirer: s.Expirer},
		Distribution: jobs.DistributionHandlers{Service: s.Distribution},
		Checkout:     jobs.CheckoutHandlers{Checkout: s.Checkout},
		Archive:      jobs.ArchiveHandlers{Archiver: s.Archiver},
		Reminder:     jobs.ReminderHandlers{Reminders: s.Reminders},
		Stats:        jobs.StatsHandlers{Stats: s.Stats},
		Reconcile:    jobs.ReconcileHandlers{Reconciler: s.Reconciler},
	})
}
