// Command coupond is the coupon service: a GraphQL API with its asynq worker.
//
//	coupond serve [--mode all|api|worker] [--demo]   run (migrates first)
//	coupond migrate                                   apply migrations and exit
//	coupond token --role MERCHANT --sub 1 --shop 1001 print a bearer token
//
// Configuration comes from COUPON_* environment variables (see config.go and the README).
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"coupond/auth"
	"coupond/coupon"
	"coupond/ent"
	"coupond/idgen"
	"coupond/jobs"
	"coupond/migrations"
	"coupond/store"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "coupond:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		args = []string{"serve"}
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	switch args[0] {
	case "serve":
		return serve(cfg, args[1:])
	case "migrate":
		return migrations.Apply(cfg.MySQLDSN)
	case "token":
		return printToken(cfg, args[1:])
	case "help", "-h", "--help":
		usage()
		return nil
	}
	usage()
	return fmt.Errorf("unknown command %q", args[0])
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: coupond serve [--mode all|api|worker] [--demo] | migrate | token --role R --sub N [--shop N]")
	fmt.Fprintln(os.Stderr, "\nenvironment:")
	for _, v := range configDoc {
		fmt.Fprintf(os.Stderr, "  %-26s %-36s %s\n", v.name, v.def, v.meaning)
	}
}

// printToken implements `coupond token`.
func printToken(cfg config, args []string) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	role := fs.String("role", "USER", "USER, MERCHANT or PLATFORM")
	sub := fs.Int64("sub", 1, "user id")
	shop := fs.Int64("shop", 0, "shop number (merchants)")
	ttl := fs.Duration("ttl", cfg.JWTMaxTTL, "validity (at most COUPON_JWT_MAX_TTL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	signer := auth.NewSigner(cfg.JWTSecret, auth.MaxTTL(cfg.JWTMaxTTL))
	tok, err := signer.Issue(coupon.Actor{UserID: *sub, Role: coupon.Role(*role), Shop: *shop}, *ttl)
	if err != nil {
		return fmt.Errorf("--ttl: %w (COUPON_JWT_MAX_TTL)", err)
	}
	if _, err := signer.Parse(tok); err != nil {
		return err // e.g. a merchant without --shop
	}
	fmt.Println(tok)
	return nil
}

// app is the wired service.
type app struct {
	cfg       config
	db        *ent.Client
	sqlDB     *sql.DB
	rdb       *redis.Client // data: cache, stock, outboxes
	qrdb      *redis.Client // asynq's Redis, for readiness checks
	queueOpt  asynq.RedisClientOpt
	signer    *auth.Signer
	cache     *coupon.TemplateCache
	templates *coupon.TemplateAdmin
	enqueuer  *asynq.Client
	queue     *jobs.Queue
	expirer   *coupon.Expirer
	persister *coupon.Persister
	redeemer  *coupon.Redeemer
}

// newApp migrates the database and opens every connection.
func newApp(ctx context.Context, cfg config) (*app, error) {
	if err := idgen.SetNode(cfg.NodeID); err != nil {
		return nil, fmt.Errorf("COUPON_NODE_ID: %w", err)
	}
	if err := migrations.EnsureDatabase(cfg.MySQLDSN); err != nil {
		return nil, err
	}
	if err := migrations.Apply(cfg.MySQLDSN); err != nil {
		return nil, err
	}
	db, sqlDB, err := store.OpenMySQL(cfg.MySQLDSN, cfg.MySQLMaxConns)
	if err != nil {
		return nil, err
	}
	a := &app{
		cfg: cfg, db: db, sqlDB: sqlDB,
		rdb:      store.OpenRedis(cfg.RedisAddr, cfg.RedisPassword, cfg.RedisDB),
		qrdb:     store.OpenRedis(cfg.QueueRedisAddr, cfg.RedisPassword, cfg.QueueRedisDB),
		queueOpt: asynq.RedisClientOpt{Addr: cfg.QueueRedisAddr, Password: cfg.RedisPassword, DB: cfg.QueueRedisDB},
		signer:   auth.NewSigner(cfg.JWTSecret, auth.MaxTTL(cfg.JWTMaxTTL)),
	}
	a.cache = coupon.NewTemplateCache(a.rdb, db, coupon.CacheOptions{})
	a.templates = coupon.NewTemplateAdmin(db, a.rdb, a.cache)
	a.enqueuer = asynq.NewClient(a.queueOpt)
	a.queue = jobs.NewQueue(a.enqueuer)
	a.expirer = coupon.NewExpirer(db, a.rdb)
	a.persister = coupon.NewPersister(db, a.rdb, a.expirer, a.queue, coupon.PersistConfig{BatchSize: cfg.PersistBatch})
	a.redeemer = coupon.NewRedeemer(db, a.rdb, a.cache, a.expirer, a.queue, cfg.Redeem)
	if err := a.rdb.Ping(ctx).Err(); err != nil {
		a.close()
		return nil, fmt.Errorf("redis %s: %w", cfg.RedisAddr, err)
	}
	if err := a.cache.EnsureBloom(ctx); err != nil {
		a.close()
		return nil, fmt.Errorf("bloom filter: %w", err)
	}
	a.warnWithoutAOF(ctx)
	return a, nil
}

// warnWithoutAOF logs a warning when the data Redis would lose acknowledged writes on a crash.
func (a *app) warnWithoutAOF(ctx context.Context) {
	v, err := a.rdb.ConfigGet(ctx, "appendonly").Result()
	if err == nil && v["appendonly"] != "yes" {
		slog.Warn("Redis runs without AOF: accepted claims waiting in outboxes can be lost on a Redis crash; run it with --appendonly yes --appendfsync everysec",
			"addr", a.cfg.RedisAddr)
	}
}

func (a *app) close() {
	a.db.Close()
	a.enqueuer.Close()
	a.rdb.Close()
	a.qrdb.Close()
}

// serve implements `coupond serve`.
func serve(cfg config, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	mode := fs.String("mode", "all", "all (API and worker), api, or worker")
	demo := fs.Bool("demo", false, "seed a demo shop and template and print demo tokens")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *mode != "all" && *mode != "api" && *mode != "worker" {
		return fmt.Errorf("--mode %q: want all, api or worker", *mode)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := startPprof(); err != nil {
		return err
	}
	metricsSrv, err := startMetrics(cfg.MetricsAddr)
	if err != nil {
		return err
	}
	a, err := newApp(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.close()
	if *demo {
		if err := a.seedDemo(ctx); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
	}

	errc := make(chan error, 2)
	var httpSrv *http.Server
	if *mode != "worker" {
		httpSrv = &http.Server{Addr: cfg.HTTPAddr, Handler: a.routes(), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			slog.Info("serving", "addr", cfg.HTTPAddr, "playground", localURL(cfg.HTTPAddr)+"/")
			if err := httpSrv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}
	if *mode != "worker" && cfg.Redeem.Mode == coupon.RedeemAsync {
		go a.redeemer.Run(ctx)
	}
	var worker *asynq.Server
	var scheduler *asynq.Scheduler
	if *mode != "api" {
		worker = asynq.NewServer(a.queueOpt, asynq.Config{Concurrency: cfg.Concurrency, Logger: slogAsynq{}})
		if err := worker.Start(a.jobs()); err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		scheduler = asynq.NewScheduler(a.queueOpt, &asynq.SchedulerOpts{Logger: slogAsynq{}})
		if err := jobs.RegisterPeriodic(scheduler, cfg.DrainEvery, cfg.SweepEvery); err != nil {
			return err
		}
		if err := scheduler.Start(); err != nil {
			return fmt.Errorf("scheduler: %w", err)
		}
		slog.Info("worker started", "concurrency", cfg.Concurrency, "redeemMode", cfg.Redeem.Mode)
	}

	select {
	case <-ctx.Done():
		slog.Info("shutting down")
	case err := <-errc:
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if httpSrv != nil {
		if err := httpSrv.Shutdown(sctx); err != nil {
			slog.Error("http shutdown", "err", err)
		}
	}
	if metricsSrv != nil {
		metricsSrv.Close()
	}
	if worker != nil {
		scheduler.Shutdown()
		worker.Shutdown() // waits for running tasks; unfinished ones go back to the queue
	}
	return nil
}
