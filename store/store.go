// Package store opens the connections coupond keeps: MySQL through ent, and Redis.
package store

import (
	"database/sql"
	"fmt"
	"time"

	"coupond/ent"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// NormalizeDSN returns dsn with the options coupond relies on: parseTime, UTC times, utf8mb4.
func NormalizeDSN(dsn string) (string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("mysql dsn: %w", err)
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["charset"] = "utf8mb4"
	cfg.Params["time_zone"] = "'+00:00'"
	cfg.InterpolateParams = true // one round trip per statement instead of prepare+exec+close
	return cfg.FormatDSN(), nil
}

// OpenMySQL opens the database named in dsn and returns the ent client and its *sql.DB.
// It does not migrate; see package migrations.
func OpenMySQL(dsn string, maxConns int) (*ent.Client, *sql.DB, error) {
	dsn, err := NormalizeDSN(dsn)
	if err != nil {
		return nil, nil, err
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxLifetime(30 * time.Minute)
	drv := entsql.OpenDB("mysql", db)
	return ent.NewClient(ent.Driver(drv)), db, nil
}

// OpenRedis returns a client for the Redis at addr, database number db.
func OpenRedis(addr, password string, db int) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, Password: password, DB: db})
}
