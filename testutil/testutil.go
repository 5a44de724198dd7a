// Package testutil gives tests their own real MySQL database and Redis database number, so test
// packages can run in parallel against the same servers. Nothing here is a fake.
//
// Environment: COUPON_TEST_MYSQL (server DSN without database, default root@tcp(127.0.0.1:3306)/)
// and COUPON_TEST_REDIS (default 127.0.0.1:6379).
package testutil

import (
	"context"
	"database/sql"
	"os"
	"regexp"
	"testing"

	"coupond/ent"
	"coupond/migrations"
	"coupond/store"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// Redis database numbers, one per test package (Redis has 16 by default).
const (
	RedisDBCoupon     = 1
	RedisDBGraph      = 2
	RedisDBLua        = 3
	RedisDBJobs       = 4
	RedisDBMain       = 5
	RedisDBMigrations = 6
	RedisDBBench      = 7
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

// FreshDatabase drops and re-creates the database coupond_t_<name> (empty) and returns its DSN.
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
	cfg.DBName = "coupond_t_" + name
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

// MySQL returns a migrated fresh database coupond_t_<name>: its ent client, *sql.DB and DSN.
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

// Redis returns a client on database number n, emptied first.
func Redis(t testing.TB, n int) *redis.Client {
	t.Helper()
	rdb := store.OpenRedis(RedisAddr(), "", n)
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatalf("testutil: redis db %d: %v (is Redis running? ./scripts/test.sh starts it)", n, err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
