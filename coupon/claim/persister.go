package claim

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/lua"

	"github.com/redis/go-redis/v9"
)

// PersistConfig tunes the persister.
type PersistConfig struct {
	BatchSize int           // claims per transaction, default 500
	ClaimIdle time.Duration // a claim delivered this long ago and not acknowledged is taken over, default 30s
	Consumer  string        // this worker's consumer name, default host-pid
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
	cfg    PersistConfig
	now    func() time.Time
}

// NewPersister returns a Persister.
func NewPersister(db *ent.Client, rdb redis.UniversalClient, issuer *issue.Issuer, cfg PersistConfig) *Persister {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 500
	}
	if cfg.ClaimIdle <= 0 {
		cfg.ClaimIdle = 30 * time.Second
	}
	if cfg.MaxRun <= 0 {
		cfg.MaxRun = 30 * time.Second
	}
	if cfg.Consumer == "" {
		host, _ := os.Hostname()
		cfg.Consumer = host + "-" + strconv.Itoa(os.Getpid())
	}
	return &Persister{db: db, rdb: rdb, issuer: issuer, cfg: cfg, now: time.Now}
}

// Drain persists the template's outbox until it is empty (or MaxRun has passed), first taking
// over claims a crashed persister left unacknowledged. It returns how many claims it handled.
func (p *Persister) Drain(ctx context.Context, templateID int64) (int, error) {
	deadline := time.Now().Add(p.cfg.MaxRun)
	out, err := p.openOutbox(ctx, templateID)
	if err != nil {
		return 0, err
	}
	total := 0
	for {
		msgs, err := out.next(ctx)
		if err != nil || len(msgs) == 0 {
			return total, err
		}
		if err := p.persistBatch(ctx, templateID, msgs); err != nil {
			return total, err
		}
		total += len(msgs)
		if !time.Now().Before(deadline) {
			return total, nil
		}
	}
}

// persistBatch persists one batch in one transaction, then does the Redis follow-ups (card bags,
// expiry buckets, stats, give-backs) and acknowledges the entries. Every step is idempotent, so
// a crash anywhere is healed by replaying the batch.
func (p *Persister) persistBatch(ctx context.Context, templateID int64, msgs []redis.XMessage) error {
	claims := make([]claim, 0, len(msgs))
	ids := make([]string, 0, len(msgs))
	for _, m := range msgs {
		ids = append(ids, m.ID)
		c, err := parseClaim(m)
		if err != nil {
			slog.ErrorContext(ctx, "dropping malformed outbox entry", "template", templateID, "err", err)
			continue
		}
		claims = append(claims, c)
	}
	var res batchResult
	if len(claims) > 0 {
		var err error
		if res, err = p.commitBatch(ctx, templateID, claims); err != nil {
			return err
		}
		persistBatch.Observe(float64(len(claims)))
		persistedTotal.Add(float64(res.inserted))
		driftTotal.Add(float64(res.drifted))
		if err := p.followUp(ctx, templateID, res); err != nil {
			return err
		}
	}
	pipe := p.rdb.Pipeline()
	pipe.XAck(ctx, keys.Outbox(templateID), outboxGroup, ids...)
	pipe.XDel(ctx, keys.Outbox(templateID), ids...)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("acknowledge outbox entries: %w", err)
	}
	return nil
}

// followUp does the Redis side of a committed batch: card-bag entries keyed by the claim's user
// (never a request context, D-01), expiry buckets, realtime stats and the give-back of failed
// claims (idempotent through the redemption key). Then it schedules the expiry buckets.
func (p *Persister) followUp(ctx context.Context, templateID int64, res batchResult) error {
	for _, c := range res.failed {
		_, err := lua.RedeemRelease(ctx, p.rdb, lua.ReleaseKeys{
			Template: keys.Template(templateID), Claims: keys.ClaimCounter(templateID, c.userID),
			Redemption: keys.Redemption(templateID, c.redemptionID),
		}, false)
		if err != nil {
			return fmt.Errorf("give back failed claim: %w", err)
		}
	}
	return p.issuer.AfterCommit(ctx, templateID, res.issued, res.inserted)
}
