// Package testutil gives each test package its own real MySQL database and its own Redis key
// namespace (keys and asynq queues), so test packages run in parallel against the same servers,
// beside a running dev server, without touching each other's data. Nothing here is a fake.
//
// Environment: COUPON_TEST_MYSQL (server DSN without database, default root@tcp(127.0.0.1:3306)/),
// COUPON_TEST_REDIS (default 127.0.0.1:6379), COUPON_TEST_REDIS_CLUSTER (seed nodes of a Redis
// Cluster for coupon data, e.g. 127.0.0.1:7000,127.0.0.1:7001; default none),
// COUPON_TEST_SLOT_GUARD (1: the SlotGuard on one Redis too) and COUPON_TEST_SCOPE (default empty: a few letters
// or digits put in every database name and namespace, so two checkouts, e.g. git worktrees, run
// the same packages' tests at once against the same servers).
package testutil

import (
	"context"
	"database/sql"
	"os"
	"regexp"
	"strings"
	"testing"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/migrations"
	"coupond/store"

	"github.com/go-sql-driver/mysql"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// RedisAddr is the Redis server tests use.
func RedisAddr() string { return env("COUPON_TEST_REDIS", "127.0.0.1:6379") }

var safeName = regexp.MustCompile(`^[a-z0-9_]+$`)

// scope is COUPON_TEST_SCOPE followed by "_", or empty; it panics on a value that is not a safe name.
func scope() string {
	s := os.Getenv("COUPON_TEST_SCOPE")
	if s == "" {
		return ""
	}
	if !safeName.MatchString(s) {
		panic("testutil: COUPON_TEST_SCOPE " + s + " must match " + safeName.String())
	}
	return s + "_"
}

// Namespace is the Redis key namespace of test package pkg: "t_<scope>_<pkg>_" ("t_<pkg>_"
// without COUPON_TEST_SCOPE). It panics when pkg or the scope is not a safe name.
func Namespace(pkg string) string {
	if !safeName.MatchString(pkg) {
		panic("testutil: namespace " + pkg + " must match " + safeName.String())
	}
	return "t_" + scope() + pkg + "_"
}

// FreshDatabase drops and re-creates the database coupond_t_<scope>_<name> (empty; coupond_t_<name>
// without COUPON_TEST_SCOPE) and returns its DSN.
func FreshDatabase(t testing.TB, name string) string {
	t.Helper()
	if !safeName.MatchString(name) {
		t.Fatalf("testutil: database name %q must match %s", name, safeName)
	}
	cfg, err := mysql.ParseDSN(env("COUPON_TEST_MYSQL", "root@tcp(127.0.0.1:3306)/"))
	if err != nil {
		t.Fatalf("testutil: COUPON_TEST_MYSQL: %v", err)
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg.DBName = "coupond_t_" + scope() + name
	for _, q := range []string{
		"DROP DATABASE IF EXISTS `" + cfg.DBName + "`",
		"CREATE DATABASE `" + cfg.DBName + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("testutil: %s: %v (is MariaDB running? ./scripts/test.sh starts it)", q, err)
		}
	}
	return cfg.FormatDSN()
}

// MySQL returns a migrated fresh database (FreshDatabase): its ent client, *sql.DB and DSN.
func MySQL(t testing.TB, name string) (*ent.Client, *sql.DB, string) {
	t.Helper()
	dsn := FreshDatabase(t, name)
	if err := migrations.Apply(dsn); err != nil {
		t.Fatalf("testutil: migrate: %v", err)
	}
	client, db, err := store.OpenMySQL(dsn, 32)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client, db, dsn
}

// ReadCommitted opens the checkout's pool of dsn (store.OpenMySQLReadCommitted,
// checkout.Config.DB), closed when the test ends.
func ReadCommitted(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	client, db, err := store.OpenMySQLReadCommitted(dsn, 32)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return db
}

// Strings is the first column, as strings, of the rows q (with args) reads from db.
func Strings(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// RedisCluster is the seed nodes of the Redis Cluster that holds the tests' coupon data
// (COUPON_TEST_REDIS_CLUSTER, comma-separated host:port), or none: coupon data on RedisAddr.
// asynq stays on RedisAddr either way (QueueOpt).
func RedisCluster() []string {
	v := os.Getenv("COUPON_TEST_REDIS_CLUSTER")
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// slotGuarded: tests' Redis clients carry a SlotGuard, on the cluster or with COUPON_TEST_SLOT_GUARD=1.
func slotGuarded() bool {
	return len(RedisCluster()) > 0 || os.Getenv("COUPON_TEST_SLOT_GUARD") == "1"
}

// Redis returns a client of the tests' coupon data (the Redis Cluster of RedisCluster, else the
// test Redis's database 0) and gives this test process the key namespace Namespace(pkg)
// (keys.SetNamespace; so also its asynq queue names, jobs.QueueName), after deleting every key of
// that namespace and of its asynq queues; a test or benchmark that passes deletes them again when
// it ends (a failed one leaves them to look at), so a benchmark's million keys do not stay behind
// to slow other packages' SCANs. pkg names the test package; one namespace per package, as
// packages run in parallel and tests within one do not.
//
// On the cluster, or with COUPON_TEST_SLOT_GUARD=1, the client carries a SlotGuard: a command whose
// keys span slots fails, and fails the test.
func Redis(t testing.TB, pkg string) redis.UniversalClient {
	t.Helper()
	ns := Namespace(pkg)
	keys.SetNamespace(ns)
	rdb := store.OpenRedisData(RedisAddr(), RedisCluster(), "", 0)
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	if err := unlinkNamespace(ctx, rdb, ns); err != nil {
		t.Fatalf("testutil: redis %s %v: %v (is Redis running? ./scripts/test.sh starts it)", RedisAddr(), RedisCluster(), err)
	}
	if slotGuarded() {
		g, err := NewSlotGuard(ctx, rdb)
		if err != nil {
			t.Fatal(err)
		}
		rdb.AddHook(g)
		t.Cleanup(func() { // runs after the cleanups registered later: the test's goroutines have stopped
			for _, v := range g.Violations() {
				t.Error(v)
			}
		})
	}
	t.Cleanup(func() {
		if !t.Failed() {
			unlinkNamespace(ctx, rdb, ns)
		}
	})
	return rdb
}

// unlinkNamespace deletes every key of namespace ns from rdb (on each master of a cluster, one
// UNLINK per slot's keys), and the keys of its asynq queues from the Redis asynq uses.
func unlinkNamespace(ctx context.Context, rdb redis.UniversalClient, ns string) error {
	queue := rdb
	if len(RedisCluster()) > 0 {
		q := store.OpenRedis(RedisAddr(), "", 0)
		defer q.Close()
		queue = q
	}
	for _, c := range []struct {
		rdb   redis.UniversalClient
		match string
	}{{rdb, ns + "*"}, {queue, "asynq:{" + ns + "*"}} {
		err := store.ForEachMaster(ctx, c.rdb, func(ctx context.Context, node *redis.Client) error {
			bySlot, n := map[int][]string{}, 0
			flush := func() error {
				pipe := node.Pipeline()
				for _, ks := range bySlot {
					pipe.Unlink(ctx, ks...)
				}
				clear(bySlot)
				n = 0
				_, err := pipe.Exec(ctx)
				return err
			}
			iter := node.Scan(ctx, 0, c.match, 1000).Iterator()
			for iter.Next(ctx) {
				k := iter.Val()
				bySlot[Slot(k)] = append(bySlot[Slot(k)], k)
				if n++; n == 1000 {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			if err := iter.Err(); err != nil {
				return err
			}
			return flush()
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// QueueOpt is the asynq connection of the test Redis (the namespace's queues live there too).
func QueueOpt() asynq.RedisClientOpt { return asynq.RedisClientOpt{Addr: RedisAddr()} }
