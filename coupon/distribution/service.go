package distribution

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"coupond/coupon/issue"
	"coupond/coupon/template"
	"coupond/defaults"
	"coupond/ent"
)

// Config tunes distribution; zero fields take the defaults in their comments.
type Config struct {
	BatchSize      int           // data rows per batch (one Lua call, one transaction), default defaults.DistributionBatch
	MaxUploadBytes int64         // largest accepted upload, default defaults.UploadMaxBytes
	MaxRows        int           // most data rows of one task, default defaults.DistributionMaxRows
	LeaseTTL       time.Duration // how long a killed worker's lease keeps others away, default 3s
	UserShards     int           // shards of the user tables (COUPON_MYSQL_USER_SHARDS): one coupon transaction per shard a batch touches; default 1
	Vitess         bool          // the database is a Vitess vtgate (COUPON_MYSQL_VITESS): coupons by multi-row INSERT (issue.WriteOptions)
}

func (c Config) withDefaults() Config {
	if c.BatchSize <= 0 {
		c.BatchSize = defaults.DistributionBatch
	}
	if c.MaxUploadBytes <= 0 {
		c.MaxUploadBytes = defaults.UploadMaxBytes
	}
	if c.MaxRows <= 0 {
		c.MaxRows = defaults.DistributionMaxRows
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 3 * time.Second
	}
	return c
}

// Scheduler queues distribution's tasks (jobs.Queue implements it).
type Scheduler interface {
	// RunDistribution queues the run of task at at (now or earlier: at once). dedupe gives the
	// queued task an id derived from the task, so a repeat queues nothing; the reaper queues
	// without it (a stuck or archived queued task must never keep a task from running).
	RunDistribution(ctx context.Context, taskID int64, at time.Time, dedupe bool) error
}

// Service is distribution: upload, lifecycle, execution, results and progress.
type Service struct {
	db     *ent.Client
	rdb    redis.UniversalClient
	cache  *template.Cache
	issuer *issue.Issuer
	files  *Files
	sched  Scheduler
	cfg    Config
	now    func() time.Time
	// step, when set, is called after each step of a batch ("shard deducted" for each stock shard,
	// "deducted", "reserving" (before T1), "reserved", "written", "committed", "shard
	// after-commit" for each stock shard, "after-commit"), one call at a time (the steps of four
	// batches run on four goroutines): the tests' way to inject a fault between two steps.
	step   func(name string)
	stepMu sync.Mutex
	// progress is the process's one Redis subscription to task announcements (hub.go).
	progress progressHub
}

// New returns the distribution service.
func New(db *ent.Client, rdb redis.UniversalClient, cache *template.Cache, issuer *issue.Issuer, files *Files, sched Scheduler, cfg Config) *Service {
	return &Service{db: db, rdb: rdb, cache: cache, issuer: issuer, files: files, sched: sched, cfg: cfg.withDefaults(), now: time.Now}
}

// SetStep makes s call fn after each step of a batch (Service.step: "deducted", "committed", …),
// nil for none: the tests' way to inject a fault between two steps, or to pace a run (the web
// admin's browser test, which watches each batch's progress arrive). Set it before a run starts.
func (s *Service) SetStep(fn func(name string)) { s.step = fn }

func (s *Service) stepDone(name string) {
	if s.step != nil {
		s.stepMu.Lock()
		defer s.stepMu.Unlock()
		s.step(name)
	}
}
