package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"coupond/auth"
	"coupond/coupon/archive"
	"coupond/coupon/checkout"
	"coupond/coupon/claim"
	"coupond/coupon/code"
	"coupond/coupon/distribution"
	"coupond/coupon/keys"
	"coupond/coupon/reconcile"
	"coupond/coupon/reminder"
	"coupond/coupon/stats"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/idgen"
	"coupond/jobs"
	"coupond/migrations"
	"coupond/services"
	"coupond/store"
)

// app is the process: its connections, and the domain services wired over them (services.New,
// the same wiring the tests use).
type app struct {
	cfg      config
	db       *ent.Client
	sqlDB    *sql.DB
	rcDB     *sql.DB               // the checkout's: sessions READ COMMITTED, several statements a query (checkout.Config.DB)
	rdb      redis.UniversalClient // data: cache, stock, outboxes (one Redis or a Redis Cluster)
	qrdb     redis.UniversalClient // asynq's Redis, for readiness checks
	queueOpt asynq.RedisConnOpt
	signer   *auth.Signer
	codes    *code.Codec // the coupon codes (COUPON_CODE_KEY)
	enqueuer *asynq.Client
	files    *distribution.Files // uploads of distribution tasks
	svc      *services.Services
}

// newApp migrates the database, opens every connection and wires the services. The Redis key
// namespace (COUPON_REDIS_NAMESPACE) is set first, for the whole process.
func newApp(ctx context.Context, cfg config) (*app, error) {
	keys.SetNamespace(cfg.RedisNamespace)
	keys.SetStatsZone(cfg.StatsZone)
	if err := idgen.SetNode(cfg.NodeID); err != nil {
		return nil, fmt.Errorf("COUPON_NODE_ID: %w", err)
	}
	if !cfg.MySQLVitess { // on Vitess the keyspaces and their tables are deployed beforehand (sharding/README.md)
		if err := migrations.EnsureDatabase(cfg.MySQLDSN); err != nil {
			return nil, err
		}
		if err := migrations.Apply(cfg.MySQLDSN); err != nil {
			return nil, err
		}
	}
	db, sqlDB, err := store.OpenMySQL(cfg.MySQLDSN, cfg.MySQLMaxConns)
	if err != nil {
		return nil, err
	}
	if cfg.MySQLVitess {
		if err := store.CheckVitessShards(ctx, sqlDB, migrations.KeyspaceUser, cfg.MySQLUserShards); err != nil {
			db.Close()
			return nil, fmt.Errorf("COUPON_MYSQL_USER_SHARDS: %w", err)
		}
	}
	_, rcDB, err := store.OpenMySQLReadCommitted(cfg.MySQLDSN, cfg.MySQLMaxConns)
	if err != nil {
		db.Close()
		return nil, err
	}
	a := &app{
		cfg: cfg, db: db, sqlDB: sqlDB, rcDB: rcDB,
		rdb:      store.OpenRedisData(cfg.RedisAddr, cfg.RedisClusterAddrs, cfg.RedisPassword, cfg.RedisDB),
		queueOpt: queueConnOpt(cfg),
		signer:   auth.NewSigner(cfg.JWTSecret, auth.MaxTTL(cfg.JWTMaxTTL)),
		codes:    code.New([]byte(cfg.CodeKey)),
	}
	a.qrdb = a.queueOpt.MakeRedisClient().(redis.UniversalClient)
	a.enqueuer = asynq.NewClient(a.queueOpt)
	if a.files, err = distribution.OpenFiles(ctx, cfg.BlobURL); err != nil {
		a.close()
		return nil, fmt.Errorf("COUPON_BLOB_URL: %w", err)
	}
	a.svc = services.New(db, a.rdb, jobs.NewQueue(a.enqueuer), services.Config{
		Redeem: cfg.Redeem, Persist: claim.PersistConfig{BatchSize: cfg.PersistBatch, Linger: linger(cfg.PersistLinger), UserShards: cfg.MySQLUserShards, Vitess: cfg.MySQLVitess},
		Distribution:     distribution.Config{BatchSize: cfg.DistributionBatch, MaxUploadBytes: cfg.UploadMaxBytes, MaxRows: cfg.DistributionMaxRows, UserShards: cfg.MySQLUserShards, Vitess: cfg.MySQLVitess},
		Files:            a.files,
		Checkout:         checkout.Config{LockTTL: cfg.LockTTL, DB: rcDB},
		Archive:          archive.Config{After: cfg.ArchiveAfter, BatchSize: cfg.ArchiveBatch, UserShards: cfg.MySQLUserShards},
		Reminder:         reminder.Config{Retries: cfg.ReminderRetries, UserShards: cfg.MySQLUserShards},
		ReminderSender:   reminderSender(cfg),
		Stats:            stats.Config{MaxDays: cfg.StatsMaxDays},
		Cache:            template.CacheOptions{UserShards: cfg.MySQLUserShards},
		Reconcile:        reconcileConfig(cfg),
		ExpiryUserShards: cfg.MySQLUserShards,
		StockShards:      cfg.StockShards,
	})
	if err := a.rdb.Ping(ctx).Err(); err != nil {
		a.close()
		return nil, fmt.Errorf("redis %s: %w", redisName(cfg), err)
	}
	if err := a.svc.Cache.EnsureBloom(ctx); err != nil {
		a.close()
		return nil, fmt.Errorf("bloom filter: %w", err)
	}
	a.warnWithoutAOF(ctx)
	if fixed, err := a.svc.Cache.RepairStocks(ctx); err != nil {
		slog.Warn("start-up stock repair failed", "err", err)
	} else if len(fixed) > 0 {
		slog.Warn("Redis held more stock than MySQL allows (restored from an older AOF?); hashes dropped for an exact rebuild", "templates", fixed)
	}
	return a, nil
}

// reconcileConfig is cfg.Reconcile reading the user tables split as COUPON_MYSQL_USER_SHARDS says.
func reconcileConfig(cfg config) reconcile.Config {
	rc := cfg.Reconcile
	rc.UserShards = cfg.MySQLUserShards
	return rc
}

// reminderSender is the webhook followed by the log line when COUPON_REMINDER_WEBHOOK_URL is set,
// else the log line alone.
func reminderSender(cfg config) reminder.Sender {
	if cfg.ReminderWebhookURL == "" {
		return reminder.LogSender{}
	}
	return reminder.Senders{reminder.NewWebhook(cfg.ReminderWebhookURL, cfg.ReminderWebhookSecret, cfg.ReminderWebhookTimeout), reminder.LogSender{}}
}

// queueConnOpt is asynq's connection: the Redis Cluster of COUPON_QUEUE_REDIS_CLUSTER_ADDRS, or
// the one Redis at COUPON_QUEUE_REDIS_ADDR.
func queueConnOpt(cfg config) asynq.RedisConnOpt {
	if len(cfg.QueueRedisClusterAddrs) > 0 {
		return asynq.RedisClusterClientOpt{Addrs: cfg.QueueRedisClusterAddrs, Password: cfg.RedisPassword}
	}
	return asynq.RedisClientOpt{Addr: cfg.QueueRedisAddr, Password: cfg.RedisPassword, DB: cfg.QueueRedisDB}
}

// redisName names the data Redis in logs: its address, or the cluster's seed nodes.
func redisName(cfg config) string {
	if len(cfg.RedisClusterAddrs) > 0 {
		return "cluster " + strings.Join(cfg.RedisClusterAddrs, ",")
	}
	return cfg.RedisAddr
}

// warnWithoutAOF logs a warning for each data Redis server (every master of a cluster) that would
// lose acknowledged writes on a crash (AOF off), or more of them than COUPON_REDIS_FSYNC allows
// (appendfsync everysec when always is asked).
func (a *app) warnWithoutAOF(ctx context.Context) {
	err := store.ForEachMaster(ctx, a.rdb, func(ctx context.Context, node *redis.Client) error {
		v, err := node.ConfigGet(ctx, "append*").Result()
		addr := node.Options().Addr
		switch {
		case err != nil:
			slog.Warn("cannot read the Redis AOF settings", "addr", addr, "err", err)
		case v["appendonly"] != "yes":
			slog.Warn("Redis runs without AOF: accepted claims waiting in outboxes can be lost on a Redis crash; run it with --appendonly yes --appendfsync "+a.cfg.RedisFsync,
				"addr", addr)
		case a.cfg.RedisFsync == "always" && v["appendfsync"] != "always":
			slog.Warn("COUPON_REDIS_FSYNC=always but Redis fsyncs its AOF "+v["appendfsync"]+": a power loss can cost accepted claims",
				"addr", addr)
		}
		return nil
	})
	if err != nil {
		slog.Warn("cannot reach every Redis master for the AOF check", "redis", redisName(a.cfg), "err", err)
	}
}

// close closes every connection.
func (a *app) close() {
	a.db.Close()
	a.rcDB.Close()
	a.enqueuer.Close()
	a.rdb.Close()
	a.qrdb.Close()
	if a.files != nil {
		a.files.Close()
	}
}

// linger is claim.PersistConfig.Linger for COUPON_PERSIST_LINGER, whose 0 means none.
func linger(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}
