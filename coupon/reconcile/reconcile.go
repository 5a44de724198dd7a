// Package reconcile proves a template's books balance: in Redis, total = remaining + issued +
// pending; in MySQL, total = remaining + issued; both totals agree; and each user's claim counter
// in Redis equals the coupons MySQL holds for the user plus the user's claims still pending. A
// drift is reported (the query, a metric, an audit row once per distinct drift), never repaired:
// re-seeding Redis stock from MySQL while claims are in flight would sell units twice. (The one
// repair of cached stock, template.Cache.RepairStocks at start-up and after a Redis restart, only
// drops a hash showing more stock than MySQL allows.)
package reconcile

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"coupond/coupon"
	"coupond/defaults"
	"coupond/ent"
	"coupond/ent/coupontemplate"

	"github.com/redis/go-redis/v9"
)

// Config tunes the reconciliation. Zero fields take the defaults in their comments.
type Config struct {
	// MaxOutbox: a template whose outbox holds more claims than this (a sale under way) has its
	// Redis equation skipped for the read instead of reading the whole stream in one script (which
	// holds Redis for its duration); default 5000.
	MaxOutbox int
	// Users is how many users' claim counters a periodic run compares per template (the next page
	// of the template's coupon holders in MySQL, plus the claim hashes the run's SCAN page found);
	// default defaults.ReconcileUsers.
	Users int
	// Templates is how many active templates a periodic run checks (round robin); default
	// defaults.ReconcileTemplates.
	Templates int
	// ScanCount is the COUNT of each SCAN call over claim hashes (one per run on one Redis, one per
	// template of the run's page on a Redis Cluster); default 1000.
	ScanCount int
	// Recheck is how long a drift must persist, read again after this, to be reported; default 300ms.
	Recheck time.Duration
	// UserShards is how many shards the user tables are split into (COUPON_MYSQL_USER_SHARDS): a
	// check reads the users' coupons in one read-only transaction per shard.
	UserShards int
}

func (c Config) withDefaults() Config {
	if c.MaxOutbox <= 0 {
		c.MaxOutbox = 5000
	}
	if c.Users <= 0 {
		c.Users = defaults.ReconcileUsers
	}
	if c.Templates <= 0 {
		c.Templates = defaults.ReconcileTemplates
	}
	if c.ScanCount <= 0 {
		c.ScanCount = 1000
	}
	if c.Recheck <= 0 {
		c.Recheck = 300 * time.Millisecond
	}
	return c
}

// Reconciler checks templates' books. Safe for concurrent use.
type Reconciler struct {
	db  *ent.Client
	rdb redis.UniversalClient
	cfg Config
	now func() time.Time
	// tracked holds the templates whose drift series this process may have set (int64 → true).
	tracked sync.Map
	// afterView and afterSnapshot, when set (tests), run after a read's step 1 and after its
	// Redis snapshot; afterShardRead after each stock shard's script of the snapshot.
	afterView, afterSnapshot, afterShardRead func()
}

// New returns a Reconciler.
func New(db *ent.Client, rdb redis.UniversalClient, cfg Config) *Reconciler {
	return &Reconciler{db: db, rdb: rdb, cfg: cfg.withDefaults(), now: time.Now}
}

// Report is one template's books as one check read them.
type Report struct {
	TemplateID int64
	ShopNumber int64
	TotalStock int  // MySQL's total_stock
	RedisStock *int // the cached stock; nil when the template is not cached
	DBStock    int
	Issued     int // coupons in MySQL: written by settled stock batches, and so far by OPEN ones
	Reserved   int // units OPEN stock batches took from the stock that no coupon holds yet
	Pending    int // units Redis took that MySQL does not hold yet (claims and distribution rows)
	// Meanwhile are the coupons of batches whose T1 came after the MySQL read and whose outbox
	// entries or journal left Redis before its snapshot: taken from Redis's stock, not from the
	// MySQL stock read (counted on Redis's side only).
	Meanwhile int
	Failed    int // claims MySQL refused
	Balanced  bool
	Drift     []string // one line per broken equation
	CheckedAt time.Time
	// Skipped says why the Redis equation was not checked ("" when it was).
	Skipped string
	// breaks are the broken equations, each with its imbalance, in Drift's order.
	breaks []imbalance
}

// RedisChecked reports whether the check read the Redis equation (it skips it while the outbox is
// over MaxOutbox claims; see Skipped). A template not cached counts as checked: Redis holds
// nothing to compare.
func (r *Report) RedisChecked() bool { return r.Skipped == "" }

// imbalance is one broken equation: kind names it ("mysql", "redis", "total", "user:<id>"), delta
// is by how much its right side exceeds its left; line is the readable form.
type imbalance struct {
	kind  string
	delta int
	line  string
}

// signature identifies the drift by its broken equations and their imbalances (not by the
// figures that move with honest traffic, such as pending): the same drift read twice has the same
// signature. It is "" when the books balance.
func (r *Report) signature() string {
	s := ""
	for _, b := range r.breaks {
		s += fmt.Sprintf("%s:%+d;", b.kind, b.delta)
	}
	return s
}

// Check reads template id's books for actor (the platform, or the merchant of its SHOP template; anyone
// else and an unknown id get coupon.ErrNotFound), with the counters of the first Users holders of
// its coupons. A broken equation is read again after Recheck and reported only when it persists.
// Check writes nothing.
func (r *Reconciler) Check(ctx context.Context, actor coupon.Actor, id int64) (*Report, error) {
	row, err := r.db.CouponTemplate.Query().Where(coupontemplate.ID(id)).Only(ctx)
	if ent.IsNotFound(err) || (err == nil && !actor.ManagesTemplate(row.Source, row.ShopNumber)) {
		return nil, coupon.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reconcile %d: %w", id, err)
	}
	pg, _, err := r.holders(ctx, id, 0, r.cfg.Users)
	if err != nil {
		return nil, err
	}
	return r.confirmed(ctx, row.ID, pg)
}

// confirmed reads the books, and when an equation is broken reads them again after Recheck,
// keeping only the breaks both reads saw with the same imbalance (a claim or a batch in flight
// between two stores must not read as drift).
func (r *Reconciler) confirmed(ctx context.Context, id int64, pg page) (*Report, error) {
	first, err := r.read(ctx, id, pg)
	if err != nil || first.Balanced {
		return first, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(r.cfg.Recheck):
	}
	second, err := r.read(ctx, id, pg)
	if err != nil {
		return nil, err
	}
	kept := second.breaks[:0]
	for _, b := range second.breaks {
		if slices.ContainsFunc(first.breaks, func(a imbalance) bool { return a.kind == b.kind && a.delta == b.delta }) {
			kept = append(kept, b)
		}
	}
	second.setBreaks(kept)
	return second, nil
}

// setBreaks sets the report's broken equations, its drift lines and whether it balances.
func (r *Report) setBreaks(breaks []imbalance) {
	r.breaks, r.Drift = breaks, make([]string, 0, len(breaks))
	for _, b := range breaks {
		r.Drift = append(r.Drift, b.line)
	}
	r.Balanced = len(breaks) == 0
}
