package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // COUPON_STATS_TIMEZONE works on hosts without a zone database

	"coupond/coupon/claim"
	"coupond/coupon/reconcile"
	"coupond/coupon/template"
	"coupond/defaults"
	"coupond/graph"
)

// config is read from environment variables (settings); every default works on a developer machine.
type config struct {
	Env             string
	HTTPAddr        string
	MySQLDSN        string
	MySQLMaxConns   int
	MySQLVitess     bool
	MySQLUserShards int
	RedisAddr       string
	RedisPassword   string
	RedisDB         int
	RedisNamespace  string
	RedisFsync      string
	QueueRedisAddr  string
	QueueRedisDB    int
	JWTSecret       string
	CodeKey         string
	MonitorUser     string
	MonitorPassword string
	NodeID          int64
	ComplexityLimit int
	DepthLimit      int
	ClaimPlans      string
	Concurrency     int
	ShutdownTimeout time.Duration
	Redeem          claim.Config
	PersistBatch    int
	PersistLinger   time.Duration
	StockShards     int
	DrainEvery      time.Duration
	SweepEvery      time.Duration
	LockTTL         time.Duration
	CheckoutSweep   time.Duration
	PprofAddr       string
	JWTMaxTTL       time.Duration
	MetricsAddr     string
	CORSOrigins     []string
	// PlaygroundSetting is COUPON_PLAYGROUND as given; Playground what it resolves to.
	PlaygroundSetting string
	Playground        bool
	// connections
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	MinBodyRate       int
	BodyGrace         time.Duration
	// distribution
	UploadMaxBytes      int64
	BlobURL             string
	DistributionBatch   int
	DistributionMaxRows int
	ReapEvery           time.Duration
	UploadRetention     time.Duration
	// archive
	ArchiveAfter time.Duration
	ArchiveBatch int
	ArchiveEvery time.Duration
	// reminders
	ReminderWebhookURL     string
	ReminderWebhookSecret  string
	ReminderWebhookTimeout time.Duration
	ReminderRetries        int
	ReminderSweepEvery     time.Duration
	// stats
	StatsZone        *time.Location
	StatsMaxDays     int
	StatsRollUpEvery time.Duration
	// the admin's books
	ReconcileEvery      time.Duration
	Reconcile           reconcile.Config
	MetricsTopTemplates int

	// RedisClusterAddrs and QueueRedisClusterAddrs are the seed nodes of a Redis Cluster (none: one
	// Redis at RedisAddr, QueueRedisAddr).
	RedisClusterAddrs      []string
	QueueRedisClusterAddrs []string
}

const devSecret = "coupond-dev-secret-change-me"

// setting is one environment variable: its name, its default (as the variable would spell it),
// what it means, and how its value is stored in the config.
type setting struct {
	env, def, meaning string
	set               func(c *config, v string) error
}

// durDefault spells a default duration as the variable would: 15m, 2160h, 5s.
func durDefault(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// settings is every variable coupond reads. A default that a package also falls back to is the
// package defaults' constant (written once). The config struct, `coupond help` and the README
// table (TestReadmeConfigTable) all come from it.
var settings = []setting{
	{"COUPON_ENV", "dev", "dev or prod; prod turns introspection off and requires real secrets", oneOf(func(c *config) *string { return &c.Env }, "dev", "prod")},
	{"COUPON_HTTP_ADDR", "", "HTTP listen address (empty: 127.0.0.1:8080 in dev, this machine only; :8080 in prod)", str(func(c *config) *string { return &c.HTTPAddr })},
	{"COUPON_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/coupond", "MySQL/MariaDB DSN (go-sql-driver); database created if missing", str(func(c *config) *string { return &c.MySQLDSN })},
	{"COUPON_MYSQL_MAX_CONNS", "50", "size of each of the two MySQL connection pools (the checkout has its own, its sessions READ COMMITTED)", num(func(c *config) *int { return &c.MySQLMaxConns })},
	{"COUPON_MYSQL_VITESS", "0", "1: the DSN is a Vitess vtgate (sharding/README.md): no CREATE DATABASE or migrations at start-up, the user keyspace's shard count checked, coupons written by multi-row INSERT (vtgate takes no LOAD DATA)", flag01(func(c *config) *bool { return &c.MySQLVitess })},
	{"COUPON_MYSQL_USER_SHARDS", "1", "shards of the user keyspace (coupond_user) as the engine routes user_id (Vitess xxhash): claim and distribution batches, expiry, the archive and reminder outcomes write, and the cache rebuild and reconciliation read, one transaction per shard; on Vitess it must be the keyspace's", num(func(c *config) *int { return &c.MySQLUserShards })},
	{"COUPON_REDIS_ADDR", "127.0.0.1:6379", "Redis for cache, stock and outboxes (run it with AOF)", str(func(c *config) *string { return &c.RedisAddr })},
	{"COUPON_REDIS_PASSWORD", "", "its password", str(func(c *config) *string { return &c.RedisPassword })},
	{"COUPON_REDIS_DB", "0", "its database number", num(func(c *config) *int { return &c.RedisDB })},
	{"COUPON_REDIS_NAMESPACE", "", "prefix of every Redis key and asynq queue name coupond uses (deployments sharing one Redis)", str(func(c *config) *string { return &c.RedisNamespace })},
	{"COUPON_REDIS_FSYNC", "everysec", "the data Redis's appendfsync the server expects (warns otherwise; scripts/services.sh sets it): everysec can lose the last second of accepted claims on a power loss, always nothing (bench/fsync.sh: about half the claim script's ceiling)", oneOf(func(c *config) *string { return &c.RedisFsync }, "everysec", "always")},
	{"COUPON_QUEUE_REDIS_ADDR", "", "Redis for asynq jobs (empty: COUPON_REDIS_ADDR)", str(func(c *config) *string { return &c.QueueRedisAddr })},
	{"COUPON_QUEUE_REDIS_DB", "1", "its database number", num(func(c *config) *int { return &c.QueueRedisDB })},
	{"COUPON_REDIS_CLUSTER_ADDRS", "", "comma-separated seed nodes (host:port) of a Redis Cluster for cache, stock and outboxes instead of COUPON_REDIS_ADDR; needs COUPON_REDIS_DB 0 and a namespace without { or } (README \"Running on Redis Cluster\")", addrList(func(c *config) *[]string { return &c.RedisClusterAddrs })},
	{"COUPON_QUEUE_REDIS_CLUSTER_ADDRS", "", "comma-separated seed nodes of a Redis Cluster for asynq jobs instead of COUPON_QUEUE_REDIS_ADDR; needs COUPON_QUEUE_REDIS_DB=0 (empty: asynq on one Redis, the advised placement)", addrList(func(c *config) *[]string { return &c.QueueRedisClusterAddrs })},
	{"COUPON_REDIS_WAIT_REPLICAS", "0", "replicas that must acknowledge each claim before it is answered: the claim scripts of a flush are followed, on each node's connection, by WAIT N; a claim fewer replicas acknowledged in time is answered UNCONFIRMED (its retry with the same requestId answers it); 0: no WAIT (a failover can lose the claims a master acknowledged last; README \"Running on Redis Cluster\")", num(func(c *config) *int { return &c.Redeem.WaitReplicas })},
	{"COUPON_REDIS_WAIT_TIMEOUT", durDefault(defaults.RedisWaitTimeout), "how long that WAIT waits for the replicas (1ms to 2s: under the Redis client's 3 s read timeout)", waitTimeout},
	{"COUPON_JWT_SECRET", devSecret, "HS256 secret of bearer tokens", str(func(c *config) *string { return &c.JWTSecret })},
	{"COUPON_CODE_KEY", devSecret, "key of the coupon codes, derived from each coupon's id (coupon/code): keep it secret and never change it, or every code changes", str(func(c *config) *string { return &c.CodeKey })},
	{"COUPON_MONITOR_USER", "admin", "basic-auth user of /monitoring (asynqmon)", str(func(c *config) *string { return &c.MonitorUser })},
	{"COUPON_MONITOR_PASSWORD", "admin", "its password", str(func(c *config) *string { return &c.MonitorPassword })},
	{"COUPON_NODE_ID", "1", "snowflake node number, unique per instance (0…1023)", num64(func(c *config) *int64 { return &c.NodeID })},
	{"COUPON_COMPLEXITY_LIMIT", "500", "GraphQL complexity limit", num(func(c *config) *int { return &c.ComplexityLimit })},
	{"COUPON_DEPTH_LIMIT", "15", "GraphQL depth limit", num(func(c *config) *int { return &c.DepthLimit })},
	{"COUPON_CLAIM_PLANS", "on", "on: a redeemCoupon document seen once is answered by its claim plan, an applicableCoupons document selecting only plain quote and coupon fields by its quote plan, and a lockCoupon, confirmCouponPayment, releaseCoupon or refundCoupon document selecting only plain settlement fields by its settlement plan, inside gqlgen's pipeline but past its executor (the same bytes, fewer allocations; no goroutine per quote); off: by gqlgen's executor", oneOf(func(c *config) *string { return &c.ClaimPlans }, "on", "off")},
	{"COUPON_WORKER_CONCURRENCY", "20", "asynq worker goroutines", num(func(c *config) *int { return &c.Concurrency })},
	{"COUPON_SHUTDOWN_TIMEOUT", "15s", "graceful shutdown budget", dur(func(c *config) *time.Duration { return &c.ShutdownTimeout })},
	{"COUPON_REDEEM_MODE", string(claim.ModeAsync), "async: answer PENDING, persist in batches; sync: persist in the request", redeemMode},
	{"COUPON_REDEEM_TEMPLATE_RATE", strconv.FormatFloat(defaults.RedeemTemplateRate, 'f', -1, 64), "claims/s one instance admits per template (token bucket)", rate(func(c *config) *float64 { return &c.Redeem.TemplateRate })},
	{"COUPON_REDEEM_HOT_TEMPLATES", "", "per-template overrides, e.g. 123=200000,456=80000", hotTemplates},
	{"COUPON_REDEEM_USER_RATE", "10", "claim attempts per second per user and template (0: off)", num(func(c *config) *int { return &c.Redeem.UserRate })},
	{"COUPON_STOCK_SHARDS_DEFAULT", "1", "Redis sub-stocks of a template created without stockShards (1 to 64; README \"Hot templates\"): 1 keeps the stock in the template's hash", stockShards},
	{"COUPON_PERSIST_BATCH", strconv.Itoa(defaults.PersistBatch), "claims per persister batch", num(func(c *config) *int { return &c.PersistBatch })},
	{"COUPON_PERSIST_LINGER", durDefault(defaults.PersistLinger), "after a persister batch short of COUPON_PERSIST_BATCH while claims flow, the wait for the next to fill (0: none)", durOrNone(func(c *config) *time.Duration { return &c.PersistLinger })},
	{"COUPON_DRAIN_EVERY", "1s", "period of the outbox safety-net drain", dur(func(c *config) *time.Duration { return &c.DrainEvery })},
	{"COUPON_SWEEP_EVERY", "10m", "period of the expiry sweep", dur(func(c *config) *time.Duration { return &c.SweepEvery })},
	{"COUPON_LOCK_TTL", durDefault(defaults.LockTTL), "how long lockCoupon holds a coupon for an unpaid order before it is released", dur(func(c *config) *time.Duration { return &c.LockTTL })},
	{"COUPON_CHECKOUT_SWEEP_EVERY", durDefault(defaults.CheckoutSweepEvery), "period of the checkout sweep (after-commit replays, expired locks)", dur(func(c *config) *time.Duration { return &c.CheckoutSweep })},
	{"COUPON_JWT_MAX_TTL", "24h", "longest bearer-token lifetime (exp − iat) issued by `coupond token` or accepted", dur(func(c *config) *time.Duration { return &c.JWTMaxTTL })},
	{"COUPON_METRICS_ADDR", "127.0.0.1:9464", "listener of /metrics (Prometheus), apart from the API; off: none", str(func(c *config) *string { return &c.MetricsAddr })},
	{"COUPON_CORS_ORIGINS", "", "comma-separated browser origins allowed to call /query (e.g. https://admin.example.com), or *; empty: none", corsOrigins},
	{"COUPON_PLAYGROUND", "", "on or off: serve the GraphQL playground at / (empty: on in dev, off in prod)", oneOf(func(c *config) *string { return &c.PlaygroundSetting }, "", "on", "off")},
	{"COUPON_HTTP_READ_HEADER_TIMEOUT", "10s", "longest wait for a request's headers, from the connection's first byte (a client that trickles them is cut)", dur(func(c *config) *time.Duration { return &c.ReadHeaderTimeout })},
	{"COUPON_HTTP_IDLE_TIMEOUT", "120s", "how long a keep-alive connection may sit idle between requests", dur(func(c *config) *time.Duration { return &c.IdleTimeout })},
	{"COUPON_HTTP_MIN_BODY_RATE", "131072", "bytes per second a request body must average: its n-th byte must arrive within COUPON_HTTP_BODY_GRACE + n/rate of its first read, else 408 (a 64 MiB upload at 1 MB/s passes)", positive(func(c *config) *int { return &c.MinBodyRate })},
	{"COUPON_HTTP_BODY_GRACE", "5s", "the time a request body gets before COUPON_HTTP_MIN_BODY_RATE applies (a body dripping a byte every 2 s is cut after about this)", dur(func(c *config) *time.Duration { return &c.BodyGrace })},
	{"COUPON_UPLOAD_MAX_BYTES", strconv.Itoa(defaults.UploadMaxBytes), "largest accepted distribution upload (.xlsx/.csv), enforced while it streams in", num64(func(c *config) *int64 { return &c.UploadMaxBytes })},
	{"COUPON_BLOB_URL", "file:///tmp/coupond-uploads?create_dir=true", "gocloud.dev bucket of uploaded files (file:// on one machine or a shared volume, s3:// when API and worker run apart)", str(func(c *config) *string { return &c.BlobURL })},
	{"COUPON_DISTRIBUTION_BATCH", strconv.Itoa(defaults.DistributionBatch), "distribution rows per batch (one Lua call, one transaction)", num(func(c *config) *int { return &c.DistributionBatch })},
	{"COUPON_DISTRIBUTION_MAX_ROWS", strconv.Itoa(defaults.DistributionMaxRows), "most data rows one distribution task may have (an .xlsx sheet's rows less a header): a CSV over it is refused at upload, a workbook over it FAILS its task before a coupon is issued", positive(func(c *config) *int { return &c.DistributionMaxRows })},
	{"COUPON_REAP_EVERY", "5s", "period of the distribution reaper, which resumes tasks whose worker died", dur(func(c *config) *time.Duration { return &c.ReapEvery })},
	{"COUPON_UPLOAD_RETENTION", "168h", "how long the upload of an ended distribution task is kept (the failures stay in MySQL)", dur(func(c *config) *time.Duration { return &c.UploadRetention })},
	{"COUPON_ARCHIVE_AFTER", durDefault(defaults.ArchiveAfter), "how long a coupon stays in user_coupon after it became EXPIRED or USED (or its payment was refunded under FORFEIT) before the archive job moves it to user_coupon_archive; a coupon with a LOCKED or PAID settlement stays", dur(func(c *config) *time.Duration { return &c.ArchiveAfter })},
	{"COUPON_ARCHIVE_BATCH", strconv.Itoa(defaults.ArchiveBatch), "archive queue entries one archive transaction takes (their coupons moved or kept)", num(func(c *config) *int { return &c.ArchiveBatch })},
	{"COUPON_ARCHIVE_EVERY", "1h", "period of the archive job (a run stopped midway goes on from the queue in the next)", dur(func(c *config) *time.Duration { return &c.ArchiveEvery })},
	{"COUPON_REMINDER_WEBHOOK_URL", "", "when set, reminders are also POSTed there as signed JSON (see API.md); empty: a log line only", str(func(c *config) *string { return &c.ReminderWebhookURL })},
	{"COUPON_REMINDER_WEBHOOK_SECRET", "", "HMAC-SHA256 key of the webhook's X-Coupond-Signature (required with the URL)", str(func(c *config) *string { return &c.ReminderWebhookSecret })},
	{"COUPON_REMINDER_WEBHOOK_TIMEOUT", durDefault(defaults.ReminderWebhookTimeout), "longest wait for the webhook receiver's answer (then the delivery is retried)", dur(func(c *config) *time.Duration { return &c.ReminderWebhookTimeout })},
	{"COUPON_REMINDER_RETRIES", strconv.Itoa(defaults.ReminderRetries), "retries of a failed reminder delivery (backoff 10s doubling, at most 10m) before it is FAILED", num(func(c *config) *int { return &c.ReminderRetries })},
	{"COUPON_REMINDER_SWEEP_EVERY", durDefault(defaults.ReminderSweepEvery), "period of the reminder sweep, which sends overdue reminders no bucket task sent", dur(func(c *config) *time.Duration { return &c.ReminderSweepEvery })},
	{"COUPON_STATS_TIMEZONE", "UTC", "IANA time zone of the stats' days (daily series and the day of every realtime counter), e.g. Asia/Shanghai", timeZone},
	{"COUPON_STATS_MAX_DAYS", strconv.Itoa(defaults.StatsMaxDays), "most days one templateStats/shopStats query may ask for", positive(func(c *config) *int { return &c.StatsMaxDays })},
	{"COUPON_STATS_ROLLUP_EVERY", durDefault(defaults.StatsRollUpEvery), "period of the stats roll-up (Redis counters into template_daily_stats, seal of closed days, recovery after a Redis loss)", dur(func(c *config) *time.Duration { return &c.StatsRollUpEvery })},
	{"COUPON_RECONCILE_EVERY", "1m", "period of the reconciliation, which checks every active template's books in Redis and MySQL and records drift", dur(func(c *config) *time.Duration { return &c.ReconcileEvery })},
	{"COUPON_RECONCILE_TEMPLATES", strconv.Itoa(defaults.ReconcileTemplates), "active templates one reconciliation run checks (round robin)", num(func(c *config) *int { return &c.Reconcile.Templates })},
	{"COUPON_RECONCILE_USERS", strconv.Itoa(defaults.ReconcileUsers), "users' claim counters one reconciliation run compares per template (round robin over the template's coupon holders)", num(func(c *config) *int { return &c.Reconcile.Users })},
	{"COUPON_METRICS_TEMPLATES", "20", "templates with their own outbox and stock series on /metrics (the deepest outboxes)", num(func(c *config) *int { return &c.MetricsTopTemplates })},
	{"COUPON_PPROF_ADDR", "", "when set (e.g. 127.0.0.1:6060), serve net/http/pprof there (unauthenticated: a loopback address is required)", str(func(c *config) *string { return &c.PprofAddr })},
}

// loadConfig reads every setting from the environment (an unset or empty variable takes its
// default) and checks the rules that span settings. Its error names every bad variable.
func loadConfig() (config, error) {
	var c config
	var errs []string
	for _, s := range settings {
		v, ok := os.LookupEnv(s.env)
		if !ok || v == "" {
			v = s.def
		}
		if err := s.set(&c, v); err != nil {
			errs = append(errs, fmt.Sprintf("%s=%q: %v", s.env, v, err))
		}
	}
	if c.QueueRedisAddr == "" {
		c.QueueRedisAddr = c.RedisAddr
	}
	errs = append(errs, clusterRefusals(c)...)
	if c.ReminderRetries == 0 {
		errs = append(errs, "COUPON_REMINDER_RETRIES: want at least 1")
	}
	if c.ReminderWebhookURL != "" {
		if u, err := url.Parse(c.ReminderWebhookURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, "COUPON_REMINDER_WEBHOOK_URL: want an http:// or https:// URL")
		}
		if c.ReminderWebhookSecret == "" {
			errs = append(errs, "COUPON_REMINDER_WEBHOOK_URL needs COUPON_REMINDER_WEBHOOK_SECRET (receivers verify the signature)")
		}
	}
	applyEnvDefaults(&c)
	errs = append(errs, prodRefusals(c)...)
	if len(errs) > 0 {
		return c, fmt.Errorf("config: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// configMarkdown is the settings as the README's table.
func configMarkdown() string {
	var b strings.Builder
	b.WriteString("| variable | default | meaning |\n|---|---|---|\n")
	for _, s := range settings {
		def := s.def
		if def != "" {
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s.env, def, s.meaning)
	}
	return b.String()
}

func str(field func(*config) *string) func(*config, string) error {
	return func(c *config, v string) error { *field(c) = v; return nil }
}

func oneOf(field func(*config) *string, allowed ...string) func(*config, string) error {
	return func(c *config, v string) error {
		*field(c) = v
		for _, a := range allowed {
			if v == a {
				return nil
			}
		}
		return fmt.Errorf("want %s", strings.Join(allowed, " or "))
	}
}

// flag01 parses "0" or "1".
func flag01(field func(*config) *bool) func(*config, string) error {
	return func(c *config, v string) error {
		if v != "0" && v != "1" {
			return fmt.Errorf("want 0 or 1, not %q", v)
		}
		*field(c) = v == "1"
		return nil
	}
}

func num(field func(*config) *int) func(*config, string) error {
	return func(c *config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("not a number ≥ 0")
		}
		*field(c) = n
		return nil
	}
}

func num64(field func(*config) *int64) func(*config, string) error {
	return func(c *config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("not a number ≥ 0")
		}
		*field(c) = n
		return nil
	}
}

func rate(field func(*config) *float64) func(*config, string) error {
	return func(c *config, v string) error {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || r <= 0 {
			return fmt.Errorf("not a positive number")
		}
		*field(c) = r
		return nil
	}
}

func positive(field func(*config) *int) func(*config, string) error {
	return func(c *config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("not a number ≥ 1")
		}
		*field(c) = n
		return nil
	}
}

// stockShards reads COUPON_STOCK_SHARDS_DEFAULT: 1 to template.MaxStockShards.
func stockShards(c *config, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > template.MaxStockShards {
		return fmt.Errorf("not a number from 1 to %d", template.MaxStockShards)
	}
	c.StockShards = n
	return nil
}

// timeZone reads COUPON_STATS_TIMEZONE (an IANA name; the zone database is embedded).
func timeZone(c *config, v string) error {
	loc, err := time.LoadLocation(v)
	if err != nil {
		return fmt.Errorf("not an IANA time zone like UTC or Asia/Shanghai")
	}
	c.StatsZone = loc
	return nil
}

func dur(field func(*config) *time.Duration) func(*config, string) error {
	return func(c *config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("want a positive duration like 1s or 10m")
		}
		*field(c) = d
		return nil
	}
}

// durOrNone is dur that also takes 0 (none).
func durOrNone(field func(*config) *time.Duration) func(*config, string) error {
	return func(c *config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("want a duration ≥ 0 like 0, 50ms or 1s")
		}
		*field(c) = d
		return nil
	}
}

// addrList parses a comma-separated list of host:port addresses (empty: none).
func addrList(field func(*config) *[]string) func(*config, string) error {
	return func(c *config, v string) error {
		*field(c) = nil
		if v == "" {
			return nil
		}
		for _, a := range strings.Split(v, ",") {
			a = strings.TrimSpace(a)
			if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
				return fmt.Errorf("%q is not a host:port address", a)
			}
			*field(c) = append(*field(c), a)
		}
		return nil
	}
}

// clusterRefusals are the settings a Redis Cluster cannot honour: a database other than 0 (a
// cluster has only database 0) and a namespace with a hash-tag brace (it would move every key of a
// template to the namespace's slot, or split one template's keys over slots).
func clusterRefusals(c config) []string {
	var errs []string
	if len(c.RedisClusterAddrs) > 0 {
		if c.RedisDB != 0 {
			errs = append(errs, fmt.Sprintf("COUPON_REDIS_DB=%d: a Redis Cluster (COUPON_REDIS_CLUSTER_ADDRS) has only database 0", c.RedisDB))
		}
		if strings.ContainsAny(c.RedisNamespace, "{}") {
			errs = append(errs, fmt.Sprintf("COUPON_REDIS_NAMESPACE=%q: on a Redis Cluster (COUPON_REDIS_CLUSTER_ADDRS) a namespace must not contain { or }: it would change the hash tag that keeps each template's keys in one slot", c.RedisNamespace))
		}
	}
	if len(c.QueueRedisClusterAddrs) > 0 && c.QueueRedisDB != 0 {
		errs = append(errs, fmt.Sprintf("COUPON_QUEUE_REDIS_DB=%d: a Redis Cluster (COUPON_QUEUE_REDIS_CLUSTER_ADDRS) has only database 0; set COUPON_QUEUE_REDIS_DB=0", c.QueueRedisDB))
	}
	return errs
}

func corsOrigins(c *config, v string) error {
	origins, err := graph.ParseOrigins(v)
	c.CORSOrigins = origins
	return err
}

// waitTimeout reads COUPON_REDIS_WAIT_TIMEOUT: a pipeline's WAIT is read within the Redis client's
// read timeout (3 s), so it must give up well before.
func waitTimeout(c *config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Millisecond || d > 2*time.Second {
		return fmt.Errorf("want a duration from 1ms to 2s")
	}
	c.Redeem.WaitTimeout = d
	return nil
}

func redeemMode(c *config, v string) error {
	c.Redeem.Mode = claim.Mode(v)
	if c.Redeem.Mode != claim.ModeAsync && c.Redeem.Mode != claim.ModeSync {
		return fmt.Errorf("want async or sync")
	}
	return nil
}

// hotTemplates reads "id=rate,id=rate".
func hotTemplates(c *config, v string) error {
	c.Redeem.HotTemplateRates = map[int64]float64{}
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		idStr, rateStr, ok := strings.Cut(item, "=")
		id, err1 := strconv.ParseInt(idStr, 10, 64)
		r, err2 := strconv.ParseFloat(rateStr, 64)
		if !ok || err1 != nil || err2 != nil || r <= 0 {
			return fmt.Errorf("%q is not id=rate", item)
		}
		c.Redeem.HotTemplateRates[id] = r
	}
	return nil
}
