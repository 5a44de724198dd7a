package claim

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"coupond/coupon"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/defaults"
	"coupond/ent"
	"coupond/lua"

	"github.com/redis/go-redis/v9"
)

// PersistConfig tunes the persister.
type PersistConfig struct {
	BatchSize int // claims per transaction, default defaults.PersistBatch
	// Linger: after a batch short of BatchSize but of at least lingerFrom claims and an eighth
	// of BatchSize (claims are flowing, slower than a batch a cycle), how long the persister
	// waits before reading the next, so batches fill: each costs MariaDB about 3 ms of CPU
	// whatever its size (README "Session 11"). A claim may then reach MySQL up to Linger later;
	// a trickle of claims is not held back. Default defaults.PersistLinger; negative: none.
	Linger time.Duration
	// ClaimIdle: a claim delivered this long ago and not acknowledged is taken over by the
	// persister holding the lease. Default 0: the lease holder is the only persister of the
	// outbox, so whatever is pending was left by one that died or lost its lease (and a replay is
	// harmless).
	ClaimIdle time.Duration
	// LeaseTTL is how long the lease of a persister that stopped renewing it (killed, stalled)
	// keeps others away from the template's outbox; it is renewed every LeaseTTL/3. Default 3s.
	LeaseTTL time.Duration
	Consumer string // this worker's consumer name, default host-pid
	// UserShards is how many shards the user tables are split into (COUPON_MYSQL_USER_SHARDS):
	// a batch writes its coupons in one transaction per shard; default 1.
	UserShards int
	// Vitess: the database is a Vitess vtgate (COUPON_MYSQL_VITESS), so coupons are written by
	// multi-row INSERT (issue.WriteOptions).
	Vitess bool
	// SweepAfter: a claim batch's stock_batch header OPEN this long was left by a crashed or
	// stalled persister and is settled by SweepBatches; default issue.SweepAfter.
	SweepAfter time.Duration
	// MaxRun bounds one Drain, so a persister task under a sale that never pauses still ends
	// (and is queued again by the next claims or the periodic drain); default 30s.
	MaxRun time.Duration
}

// Persister moves accepted claims from a template's outbox stream into MySQL, in batches of one
// transaction each. It is safe to run several at once and to crash at any point: a replayed
// claim is recognised by its redemption id and persisted once.
type Persister struct {
	db     *ent.Client
	rdb    redis.UniversalClient
	issuer *issue.Issuer
	cache  *template.Cache // dropped for an exact rebuild after drift or a batch Redis lost in flight
	cfg    PersistConfig
	now    func() time.Time
	group  *groupCommit // sync claims' shared batches
	// step, when set, is called after each step of a batch ("reserved" after T1, "written" after
	// each T2, "committed" after T3, "after-commit", "acked"):
	// the tests' way to inject a fault between two steps.
	step func(name string)
}

// NewPersister returns a Persister.
func NewPersister(db *ent.Client, rdb redis.UniversalClient, issuer *issue.Issuer, cache *template.Cache, cfg PersistConfig) *Persister {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = defaults.PersistBatch
	}
	if cfg.Linger == 0 {
		cfg.Linger = defaults.PersistLinger
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = 3 * time.Second
	}
	if cfg.MaxRun <= 0 {
		cfg.MaxRun = 30 * time.Second
	}
	if cfg.SweepAfter <= 0 {
		cfg.SweepAfter = issue.SweepAfter
	}
	if cfg.Consumer == "" {
		host, _ := os.Hostname()
		cfg.Consumer = host + "-" + strconv.Itoa(os.Getpid())
	}
	p := &Persister{db: db, rdb: rdb, issuer: issuer, cache: cache, cfg: cfg, now: time.Now}
	p.group = newGroupCommit(p)
	return p
}

// Drain persists the template's outbox until it is empty (or MaxRun has passed), first taking
// over claims a crashed persister left unacknowledged. It returns how many claims it handled.
// One persister drains a template at a time, the holder of its lease; a Drain that finds the
// lease taken returns 0 at once (the holder is on it), and one that loses its lease stops.
//
// A template with stock shards has one outbox and one lease per shard: Drain drains them one
// after the other, each under its own lease, after settling the lends between its shards that a
// crashed borrower left open (template.Cache.SweepLends).
func (p *Persister) Drain(ctx context.Context, templateID int64) (int, error) {
	n, err := p.shardCount(ctx, templateID)
	if err != nil {
		return 0, fmt.Errorf("template %d: %w", templateID, err)
	}
	if n > 1 { // lends between the shards a crashed borrower left open
		if _, err := p.cache.SweepLends(ctx, templateID, n, template.SweepLendsAfter); err != nil {
			return 0, err
		}
		if err := p.cache.ObserveShards(ctx, templateID, n); err != nil {
			return 0, err
		}
	}
	total := 0
	for i := range n {
		c, err := p.drainShard(ctx, keys.StockShard(templateID, i, n))
		total += c
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// drainShard is Drain of the outbox of stock shard s.
func (p *Persister) drainShard(ctx context.Context, s keys.Shard) (int, error) {
	ctx, held, err := p.lease(ctx, s)
	if held == nil || err != nil {
		return 0, err
	}
	defer held.release()
	deadline := time.Now().Add(p.cfg.MaxRun)
	out, err := p.openOutbox(ctx, s)
	if err != nil {
		return 0, err
	}
	total := 0
	for {
		msgs, err := out.next(ctx)
		if err != nil || len(msgs) == 0 {
			return total, err
		}
		if err := p.persistBatch(ctx, s, msgs); err != nil {
			return total, err
		}
		total += len(msgs)
		if !time.Now().Before(deadline) {
			return total, nil
		}
		if n := len(msgs); n < p.cfg.BatchSize && n >= max(p.cfg.BatchSize/8, lingerFrom) && p.cfg.Linger > 0 {
			select { // claims are flowing: let the next batch fill
			case <-ctx.Done():
				return total, ctx.Err()
			case <-time.After(p.cfg.Linger):
			}
		}
	}
}

// lingerFrom is the fewest claims of a batch after which the persister lingers (Linger): below
// it the claims trickle, and a batch's fixed cost is no load.
const lingerFrom = 64

// SweepBatches settles the claim batches' headers left OPEN longer than SweepAfter (issue.Sweep)
// and returns how many; their claims, still in the outbox, are persisted again by the next drain.
func (p *Persister) SweepBatches(ctx context.Context) (int, error) {
	return issue.Sweep(ctx, p.db, p.cfg.SweepAfter, p.cfg.UserShards)
}

// persistBatch persists one batch of outbox entries (see persist); malformed entries are logged
// and acknowledged, never retried.
func (p *Persister) persistBatch(ctx context.Context, s keys.Shard, msgs []redis.XMessage) error {
	claims := make([]claim, 0, len(msgs))
	ids := make([]string, 0, len(msgs))
	for _, m := range msgs {
		ids = append(ids, m.ID)
		c, err := parseClaim(m)
		if err != nil {
			slog.ErrorContext(ctx, "dropping malformed outbox entry", "template", s.Template, "shard", s.Index, "err", err)
			continue
		}
		claims = append(claims, c)
	}
	_, err := p.persist(ctx, s, claims, ids)
	return err
}

// afterCommitBudget bounds how long a batch's after-commit work is retried after its commit while Redis
// does not answer (restarting): longer than a restart takes, short enough not to hold a sync
// request or a persist task for long.
const afterCommitBudget = 10 * time.Second

// persist persists claims in one transaction, then does the after-commit work (expiry buckets,
// stats, give-backs) and acknowledges the entries ids. Every step is idempotent, so a
// crash anywhere is healed by replaying the batch. A batch once read is finished whatever happens
// to the caller or the lease: the transaction and the after-commit work run on a context neither can
// cancel, and the after-commit work is retried for up to afterCommitBudget while Redis fails, because a Redis
// that restarted from an older AOF meanwhile no longer holds the entries anyone could replay the
// batch from (ack then repairs what it lost).
//
// The claims are those of the outbox of stock shard s.
func (p *Persister) persist(ctx context.Context, s keys.Shard, claims []claim, ids []string) (batchResult, error) {
	ctx = context.WithoutCancel(ctx)
	var res batchResult
	if len(claims) > 0 {
		var err error
		if res, err = p.commitBatch(ctx, s.Template, claims); err != nil {
			return res, err
		}
		p.stepDone("committed")
		persistBatch.Observe(float64(len(claims)))
		persistedTotal.Add(float64(res.inserted))
		driftTotal.Add(float64(res.drifted))
	}
	ctx, cancel := context.WithTimeout(ctx, afterCommitBudget)
	defer cancel()
	if len(claims) > 0 {
		if err := retry(ctx, func() error { return p.afterCommit(ctx, s, res) }); err != nil {
			return res, err
		}
		p.stepDone("after-commit")
	}
	if err := retry(ctx, func() error { return p.ack(ctx, s, claims, ids, res.end) }); err != nil {
		return res, err
	}
	p.stepDone("acked")
	return res, nil
}

// retry calls f until it succeeds or ctx ends (then it returns f's last error), 100 ms apart.
func retry(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (p *Persister) stepDone(name string) {
	if p.step != nil {
		p.step(name)
	}
}

// finish persists one claim now (sync mode), in one batch with the template's other sync claims
// waiting (groupCommit), and tells how it ended: ISSUED with its coupon, or FAILED with the reason.
func (p *Persister) finish(ctx context.Context, s keys.Shard, c claim) (*Redemption, error) {
	res, err := p.group.finish(ctx, s, c)
	if err != nil {
		return nil, err
	}
	for _, uc := range res.issued {
		if uc.RedemptionID == c.redemptionID {
			return &Redemption{ID: c.redemptionID, Status: RedemptionIssued, Coupon: &coupon.UserCoupon{UserCoupon: uc}}, nil
		}
	}
	for _, f := range res.failed {
		if f.redemptionID == c.redemptionID && f.duplicateOf != "" {
			return redemptionOf(ctx, p.db, p.rdb, c.userID, c.redemptionID)
		}
		if f.redemptionID == c.redemptionID {
			return &Redemption{ID: c.redemptionID, Status: RedemptionFailed, FailureReason: &f.reason}, nil
		}
	}
	return nil, fmt.Errorf("claim %s: the batch neither issued nor failed it", c.redemptionID)
}

// afterCommit does the after-commit work of a committed batch: the give-back of failed claims
// (stock and counter, idempotent through the redemption key); then the counters of their users,
// and of users whose claim Redis counted below the coupons MySQL holds, raised to those coupons
// (Redis lost claims MySQL holds: a give-back or a rewound counter must not let the user over the
// limit); then the issued coupons' share of it (issue.Issuer.AfterCommit). After drift, Redis
// showed more stock than MySQL had: its hash is dropped, after the give-backs, so the next lookup
// rebuilds it exactly (MySQL's stock less the claims still in the outbox).
//
// The batch is of the outbox of stock shard s, whose hash gets the give-backs.
func (p *Persister) afterCommit(ctx context.Context, s keys.Shard, res batchResult) error {
	templateID := s.Template
	for _, f := range res.failed {
		_, err := lua.RedeemRelease(ctx, p.rdb, lua.ReleaseKeys{
			Template: s.Stock(), Claims: s.ClaimCounter(f.userID),
			Redemption: s.Redemption(f.redemptionID),
		})
		if err != nil {
			return fmt.Errorf("give back failed claim: %w", err)
		}
	}
	if res.drifted > 0 {
		if err := p.cache.Invalidate(ctx, templateID); err != nil {
			return err
		}
	}
	if err := p.raiseTo(ctx, templateID, s.Count, res.held, res.end); err != nil {
		return err
	}
	return p.issuer.AfterCommit(ctx, templateID, res.issued, res.inserted)
}
