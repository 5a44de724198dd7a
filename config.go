package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"coupond/coupon"
	"coupond/graph"
)

// config is read from environment variables; every default works on a developer machine.
type config struct {
	Env             string        // COUPON_ENV: dev or prod (prod: no introspection, secrets required)
	HTTPAddr        string        // COUPON_HTTP_ADDR
	MySQLDSN        string        // COUPON_MYSQL_DSN (go-sql-driver format; the database is created if missing)
	MySQLMaxConns   int           // COUPON_MYSQL_MAX_CONNS
	RedisAddr       string        // COUPON_REDIS_ADDR: cache, stock, outboxes
	RedisPassword   string        // COUPON_REDIS_PASSWORD
	RedisDB         int           // COUPON_REDIS_DB
	QueueRedisAddr  string        // COUPON_QUEUE_REDIS_ADDR: asynq (defaults to COUPON_REDIS_ADDR)
	QueueRedisDB    int           // COUPON_QUEUE_REDIS_DB
	JWTSecret       string        // COUPON_JWT_SECRET
	MonitorUser     string        // COUPON_MONITOR_USER: basic-auth user of /monitoring
	MonitorPassword string        // COUPON_MONITOR_PASSWORD
	NodeID          int64         // COUPON_NODE_ID: snowflake node, unique per instance (0…1023)
	ComplexityLimit int           // COUPON_COMPLEXITY_LIMIT
	DepthLimit      int           // COUPON_DEPTH_LIMIT
	Concurrency     int           // COUPON_WORKER_CONCURRENCY: asynq worker goroutines
	ShutdownTimeout time.Duration // COUPON_SHUTDOWN_TIMEOUT
	Redeem          coupon.RedeemConfig
	PersistBatch    int           // COUPON_PERSIST_BATCH
	DrainEvery      time.Duration // COUPON_DRAIN_EVERY
	SweepEvery      time.Duration // COUPON_SWEEP_EVERY
	JWTMaxTTL       time.Duration // COUPON_JWT_MAX_TTL: longest token lifetime issued or accepted
	MetricsAddr     string        // COUPON_METRICS_ADDR: /metrics listener ("off": none)
	CORSOrigins     []string      // COUPON_CORS_ORIGINS: browser origins allowed on /query and its websocket
}

const devSecret = "coupond-dev-secret-change-me"

// configDoc lists the variables with their defaults, for the README and `coupond help`.
var configDoc = []struct{ name, def, meaning string }{
	{"COUPON_ENV", "dev", "dev or prod; prod turns introspection off and requires real secrets"},
	{"COUPON_HTTP_ADDR", ":8080", "HTTP listen address"},
	{"COUPON_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/coupond", "MySQL/MariaDB DSN (go-sql-driver); database created if missing"},
	{"COUPON_MYSQL_MAX_CONNS", "50", "connection pool size"},
	{"COUPON_REDIS_ADDR", "127.0.0.1:6379", "Redis for cache, stock and outboxes (run it with AOF)"},
	{"COUPON_REDIS_PASSWORD", "", "its password"},
	{"COUPON_REDIS_DB", "0", "its database number"},
	{"COUPON_QUEUE_REDIS_ADDR", "= COUPON_REDIS_ADDR", "Redis for asynq jobs"},
	{"COUPON_QUEUE_REDIS_DB", "1", "its database number"},
	{"COUPON_JWT_SECRET", devSecret, "HS256 secret of bearer tokens"},
	{"COUPON_MONITOR_USER", "admin", "basic-auth user of /monitoring (asynqmon)"},
	{"COUPON_MONITOR_PASSWORD", "admin", "its password"},
	{"COUPON_NODE_ID", "1", "snowflake node number, unique per instance (0…1023)"},
	{"COUPON_COMPLEXITY_LIMIT", "500", "GraphQL complexity limit"},
	{"COUPON_DEPTH_LIMIT", "15", "GraphQL depth limit"},
	{"COUPON_WORKER_CONCURRENCY", "20", "asynq worker goroutines"},
	{"COUPON_SHUTDOWN_TIMEOUT", "15s", "graceful shutdown budget"},
	{"COUPON_REDEEM_MODE", "async", "async: answer PENDING, persist in batches; sync: persist in the request"},
	{"COUPON_REDEEM_TEMPLATE_RATE", "50000", "claims/s one instance admits per template (token bucket)"},
	{"COUPON_REDEEM_HOT_TEMPLATES", "", "per-template overrides, e.g. 123=200000,456=80000"},
	{"COUPON_REDEEM_USER_RATE", "10", "claim attempts per second per user and template (0: off)"},
	{"COUPON_PERSIST_BATCH", "500", "claims per persister transaction"},
	{"COUPON_DRAIN_EVERY", "1s", "period of the outbox safety-net drain"},
	{"COUPON_SWEEP_EVERY", "10m", "period of the expiry sweep"},
	{"COUPON_PPROF_ADDR", "", "when set (e.g. 127.0.0.1:6060), serve net/http/pprof there (unauthenticated: a loopback address is required)"},
	{"COUPON_JWT_MAX_TTL", "24h", "longest bearer-token lifetime (exp − iat) issued by `coupond token` or accepted"},
	{"COUPON_METRICS_ADDR", "127.0.0.1:9464", "listener of /metrics (Prometheus), apart from the API; off: none"},
	{"COUPON_CORS_ORIGINS", "", "comma-separated browser origins allowed to call /query (e.g. https://admin.example.com), or *; empty: none"},
}

func loadConfig() (config, error) {
	var errs []error
	str := func(k, def string) string {
		if v, ok := os.LookupEnv(k); ok && v != "" {
			return v
		}
		return def
	}
	num := func(k string, def int) int {
		v := str(k, strconv.Itoa(def))
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q is not a number", k, v))
		}
		return n
	}
	c := config{
		Env:             str("COUPON_ENV", "dev"),
		HTTPAddr:        str("COUPON_HTTP_ADDR", ":8080"),
		MySQLDSN:        str("COUPON_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/coupond"),
		MySQLMaxConns:   num("COUPON_MYSQL_MAX_CONNS", 50),
		RedisAddr:       str("COUPON_REDIS_ADDR", "127.0.0.1:6379"),
		RedisPassword:   str("COUPON_REDIS_PASSWORD", ""),
		RedisDB:         num("COUPON_REDIS_DB", 0),
		QueueRedisDB:    num("COUPON_QUEUE_REDIS_DB", 1),
		JWTSecret:       str("COUPON_JWT_SECRET", devSecret),
		MonitorUser:     str("COUPON_MONITOR_USER", "admin"),
		MonitorPassword: str("COUPON_MONITOR_PASSWORD", "admin"),
		NodeID:          int64(num("COUPON_NODE_ID", 1)),
		ComplexityLimit: num("COUPON_COMPLEXITY_LIMIT", 500),
		DepthLimit:      num("COUPON_DEPTH_LIMIT", 15),
		Concurrency:     num("COUPON_WORKER_CONCURRENCY", 20),
	}
	c.QueueRedisAddr = str("COUPON_QUEUE_REDIS_ADDR", c.RedisAddr)
	dur := func(k, def string) time.Duration {
		d, err := time.ParseDuration(str(k, def))
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s: want a positive duration like %s", k, def))
		}
		return d
	}
	c.ShutdownTimeout = dur("COUPON_SHUTDOWN_TIMEOUT", "15s")
	c.DrainEvery = dur("COUPON_DRAIN_EVERY", "1s")
	c.SweepEvery = dur("COUPON_SWEEP_EVERY", "10m")
	c.JWTMaxTTL = dur("COUPON_JWT_MAX_TTL", "24h")
	c.MetricsAddr = str("COUPON_METRICS_ADDR", "127.0.0.1:9464")
	origins, originsErr := graph.ParseOrigins(str("COUPON_CORS_ORIGINS", ""))
	if originsErr != nil {
		errs = append(errs, originsErr)
	}
	c.CORSOrigins = origins
	c.PersistBatch = num("COUPON_PERSIST_BATCH", 500)
	c.Redeem = coupon.RedeemConfig{
		Mode:         coupon.RedeemMode(str("COUPON_REDEEM_MODE", "async")),
		TemplateRate: float64(num("COUPON_REDEEM_TEMPLATE_RATE", 50000)),
		UserRate:     num("COUPON_REDEEM_USER_RATE", 10),
	}
	if m := c.Redeem.Mode; m != coupon.RedeemAsync && m != coupon.RedeemSync {
		errs = append(errs, fmt.Errorf("COUPON_REDEEM_MODE=%q: want async or sync", m))
	}
	hot, err := parseHotTemplates(str("COUPON_REDEEM_HOT_TEMPLATES", ""))
	if err != nil {
		errs = append(errs, err)
	}
	c.Redeem.HotTemplateRates = hot
	switch c.Env {
	case "dev":
	case "prod":
		if c.JWTSecret == devSecret || len(c.JWTSecret) < 32 {
			errs = append(errs, fmt.Errorf("COUPON_ENV=prod needs COUPON_JWT_SECRET of at least 32 characters"))
		}
		if c.MonitorPassword == "admin" {
			errs = append(errs, fmt.Errorf("COUPON_ENV=prod needs COUPON_MONITOR_PASSWORD"))
		}
	default:
		errs = append(errs, fmt.Errorf("COUPON_ENV=%q: want dev or prod", c.Env))
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("config: %v", errs)
	}
	return c, nil
}

// parseHotTemplates reads "id=rate,id=rate".
func parseHotTemplates(s string) (map[int64]float64, error) {
	out := map[int64]float64{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		idStr, rateStr, ok := strings.Cut(item, "=")
		id, err1 := strconv.ParseInt(idStr, 10, 64)
		rate, err2 := strconv.ParseFloat(rateStr, 64)
		if !ok || err1 != nil || err2 != nil || rate <= 0 {
			return nil, fmt.Errorf("COUPON_REDEEM_HOT_TEMPLATES: %q is not id=rate", item)
		}
		out[id] = rate
	}
	return out, nil
}
