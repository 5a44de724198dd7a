package claim

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent/coupontemplate"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var rewoundTotal = promauto.NewCounter(prometheus.CounterOpts{
	Name: "coupond_claims_rewound_total",
	Help: "Persisted claims whose Redis writes (stock, counter, outbox entry) a Redis restart had undone; their template hash was rebuilt and counters raised.",
})

// repairRewound repairs Redis after it lost the claim script's writes for claims of users whose
// outcome MySQL now holds: the rewound template hash is dropped so the next lookup rebuilds it
// exactly from MySQL, and the users' counters are raised to the coupons MySQL holds, so Redis
// neither sells those units again nor lets a repeated claim through.
// The users' claims are of stock shard s.
func (p *Persister) repairRewound(ctx context.Context, s keys.Shard, users []int64, end time.Time) error {
	templateID := s.Template
	rewoundTotal.Add(float64(len(users)))
	slog.WarnContext(ctx, "Redis lost persisted claims while their batch was in flight; rebuilding its template hash", "template", templateID, "claims", len(users))
	if err := p.cache.Invalidate(ctx, templateID); err != nil {
		return err
	}
	return p.raiseCounters(ctx, templateID, s.Count, users, end)
}

// raiseCounters raises the claim counter of each of users on the template to the coupons MySQL
// holds for them when it is lower (never lowers one), with the template's end as its expiry when
// end is set (else the row's). shards is the template's StockShards.
func (p *Persister) raiseCounters(ctx context.Context, templateID int64, shards int, users []int64, end time.Time) error {
	if end.IsZero() {
		tpl, err := p.db.CouponTemplate.Query().Where(coupontemplate.ID(templateID)).Only(ctx)
		if err != nil {
			return fmt.Errorf("read template %d: %w", templateID, err)
		}
		end = tpl.ValidEndTime
	}
	held, err := issue.HeldCounts(ctx, p.db, templateID, users)
	if err != nil {
		return err
	}
	return p.raiseTo(ctx, templateID, shards, held, end)
}

// raiseTo raises the claim counter of each user in held to the coupons held[user] when it is lower
// (issue.RaiseCounters), the hash expiring at end.
func (p *Persister) raiseTo(ctx context.Context, templateID int64, shards int, held map[int64]int, end time.Time) error {
	return issue.RaiseCounters(ctx, p.rdb, templateID, shards, held, end, p.now())
}
