// Package store opens the connections coupond keeps: MySQL through ent, and Redis.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"
	"sync"
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
	return openMySQL(dsn, maxConns, "")
}

// OpenMySQLReadCommitted is OpenMySQL over the checkout's pool: its sessions are READ COMMITTED
// (each connection sets the level once when it opens, so a transaction that wants the level — the
// checkout's lock: its locking reads take no gap locks — does not set it per transaction, which
// costs a round trip each time), and its connections take several statements in one query
// (multiStatements: the checkout sends START TRANSACTION and its writes at once). Every statement
// on it binds its values as placeholders, which the driver escapes; none is text pasted in.
func OpenMySQLReadCommitted(dsn string, maxConns int) (*ent.Client, *sql.DB, error) {
	return openMySQL(dsn, maxConns, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
}

// openMySQL opens the pool of dsn; with a session statement (the checkout's pool) every
// connection runs it as it opens and takes several statements in one query.
func openMySQL(dsn string, maxConns int, session string) (*ent.Client, *sql.DB, error) {
	dsn, err := NormalizeDSN(dsn)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, nil, err
	}
	cfg.MultiStatements = session != ""
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, nil, err
	}
	if session != "" {
		conn = sessionConnector{conn, session}
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxLifetime(30 * time.Minute)
	return Client(db), db, nil
}

// Client is an ent client over the pool db.
func Client(db *sql.DB) *ent.Client {
	return ent.NewClient(ent.Driver(entsql.OpenDB("mysql", db)))
}

// sessionConnector opens connections that run one statement (a session setting) first.
type sessionConnector struct {
	driver.Connector
	session string
}

func (c sessionConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	exec, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("mysql: a %T cannot run %q", conn, c.session)
	}
	if _, err := exec.ExecContext(ctx, c.session, nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("mysql: %s: %w", c.session, err)
	}
	return conn, nil
}

// OpenRedis returns a client for the Redis at addr, database number db.
func OpenRedis(addr, password string, db int) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, Password: password, DB: db})
}

// OpenRedisData returns the client of coupon data: the Redis Cluster seeded by clusterAddrs when
// there are any (its database 0; addr and db are then not used), else OpenRedis(addr, password, db).
func OpenRedisData(addr string, clusterAddrs []string, password string, db int) redis.UniversalClient {
	if len(clusterAddrs) > 0 {
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: clusterAddrs, Password: password})
	}
	return OpenRedis(addr, password, db)
}

// ForEachMaster runs fn on every master of rdb's Redis Cluster, concurrently, or once on rdb itself
// when it is one server; it returns the first error. Keyless work (SCAN, CONFIG GET) goes through it.
func ForEachMaster(ctx context.Context, rdb redis.UniversalClient, fn func(ctx context.Context, node *redis.Client) error) error {
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		return c.ForEachMaster(ctx, fn)
	case *redis.Client:
		return fn(ctx, c)
	default:
		return fmt.Errorf("store: ForEachMaster: unsupported Redis client %T", rdb)
	}
}

// RunIDs identifies the data Redis's processes: the run_id of one server, or the sorted
// "address=run_id" of every master of a cluster. It changes when a server restarts, and on a
// cluster when a failover promotes a replica (writes the old master had not replicated are lost).
func RunIDs(ctx context.Context, rdb redis.UniversalClient) (string, error) {
	var mu sync.Mutex
	var ids []string
	err := ForEachMaster(ctx, rdb, func(ctx context.Context, node *redis.Client) error {
		info, err := node.InfoMap(ctx, "server").Result()
		if err != nil {
			return err
		}
		id := info["Server"]["run_id"]
		if _, cluster := rdb.(*redis.ClusterClient); cluster {
			id = node.Options().Addr + "=" + id
		}
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
		return nil
	})
	slices.Sort(ids)
	return strings.Join(ids, ","), err
}
