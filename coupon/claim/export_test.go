package claim

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// What the external tests of this package see of its insides.
var (
	ClaimsTotal    = claimsTotal
	PersistedTotal = persistedTotal
	DriftTotal     = driftTotal
	LostTotal      = lostTotal
	RewoundTotal   = rewoundTotal
)

// OutboxGroup is the persisters' consumer group.
const OutboxGroup = outboxGroup

// CommitMessages runs the transaction of one batch of outbox entries and nothing after it: a
// persister that dies right after its commit.
func (p *Persister) CommitMessages(ctx context.Context, templateID int64, msgs []redis.XMessage) error {
	claims := make([]claim, 0, len(msgs))
	for _, m := range msgs {
		c, err := parseClaim(m)
		if err != nil {
			return err
		}
		claims = append(claims, c)
	}
	_, err := p.commitBatch(ctx, templateID, claims)
	return err
}

// OnStep makes the persister call f after each step of a batch.
func (p *Persister) OnStep(f func(step string)) { p.step = f }

// RecordLost runs what follows a Redis restart over the claims this redeemer accepted lately.
func (r *Redeemer) RecordLost(ctx context.Context) (int, error) {
	return r.recordLost(ctx, r.losses.snapshot())
}

// RepairAfterRestart runs what follows a Redis restart (lost claims, answers, counters).
func (r *Redeemer) RepairAfterRestart(ctx context.Context) error {
	_, err := r.repair(ctx)
	return err
}

// Rereads reads coupond_persist_rereads_total (coupon/issue's count of T2s done again reading
// the users' coupons whole) from the default registry.
func Rereads() float64 {
	families, _ := prometheus.DefaultGatherer.Gather()
	for _, f := range families {
		if f.GetName() == "coupond_persist_rereads_total" {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}

// PriorFailures is priorFailures (issue.Prior for claims).
var PriorFailures = priorFailures
