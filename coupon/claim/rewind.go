package claim

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent/coupontemplate"
	"coupond/lua"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var rewoundTotal = promauto.NewCounter(prometheus.CounterOpts{
	Name: "coupond_claims_rewound_total",
	Help: "Persisted claims whose Redis writes (stock, counter, outbox entry) a Redis restart had undone; their template hash was rebuilt and counters raised.",
})

// ack acknowledges and deletes the batch's outbox entries ids. When Redis lost some of them after
// the batch read them (it restarted from an older AOF while the batch was in flight), the claim
// script's writes for those claims are gone although MySQL now holds their outcome: the rewound
// template hash is dropped so the next lookup rebuilds it exactly from MySQL, and the users'
// counters are raised to the coupons MySQL holds, so Redis neither sells those units again nor
// lets a repeated claim through.
func (p *Persister) ack(ctx context.Context, templateID int64, claims []claim, ids []string, end time.Time) error {
	byStream := make(map[string]claim, len(claims))
	for _, c := range claims {
		byStream[c.streamID] = c
	}
	rkeys := make([]string, len(ids))
	for i, id := range ids {
		if c, ok := byStream[id]; ok {
			rkeys[i] = keys.Redemption(templateID, c.redemptionID)
		}
	}
	lost, err := lua.OutboxAck(ctx, p.rdb, keys.Outbox(templateID), outboxGroup, ids, rkeys)
	if err != nil {
		return fmt.Errorf("acknowledge outbox entries: %w", err)
	}
	var users []int64
	for _, i := range lost {
		if c, ok := byStream[ids[i]]; ok { // a malformed entry has no claim to repair
			users = append(users, c.userID)
		}
	}
	if len(users) == 0 {
		return nil
	}
	rewoundTotal.Add(float64(len(users)))
	slog.WarnContext(ctx, "Redis lost persisted claims while their batch was in flight; rebuilding its template hash", "template", templateID, "claims", len(users))
	if err := p.cache.Invalidate(ctx, templateID); err != nil {
		return err
	}
	return p.raiseCounters(ctx, templateID, users, end)
}

// raiseCounters raises the claim counter of each of users on the template to the coupons MySQL
// holds for them when it is lower (never lowers one), with the template's end as its expiry when
// end is set (else the row's).
func (p *Persister) raiseCounters(ctx context.Context, templateID int64, users []int64, end time.Time) error {
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
	return p.raiseTo(ctx, templateID, held, end)
}

// raiseTo raises the claim counter of each user in held to the coupons held[user] when it is lower
// (issue.RaiseCounters), the hash expiring at end.
func (p *Persister) raiseTo(ctx context.Context, templateID int64, held map[int64]int, end time.Time) error {
	return issue.RaiseCounters(ctx, p.rdb, templateID, held, end, p.now())
}
