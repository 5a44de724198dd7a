package claim

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/usercoupon"
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
// end is set, else redemptionTTL from now.
func (p *Persister) raiseCounters(ctx context.Context, templateID int64, users []int64, end time.Time) error {
	slices.Sort(users)
	users = slices.Compact(users)
	if end.IsZero() {
		tpl, err := p.db.CouponTemplate.Query().Where(coupontemplate.ID(templateID)).Only(ctx)
		if err != nil {
			return fmt.Errorf("read template %d: %w", templateID, err)
		}
		end = tpl.ValidEndTime
	}
	held := make(map[int64]int, len(users))
	for chunk := range slices.Chunk(users, 500) {
		var counts []struct {
			UserID int64 `json:"user_id"`
			Count  int   `json:"count"`
		}
		err := p.db.UserCoupon.Query().Where(usercoupon.UserIDIn(chunk...), usercoupon.TemplateID(templateID)).
			GroupBy(usercoupon.FieldUserID).Aggregate(ent.Count()).Scan(ctx, &counts)
		if err != nil {
			return fmt.Errorf("count coupons: %w", err)
		}
		for _, c := range counts {
			held[c.UserID] = c.Count
		}
	}
	return p.raiseTo(ctx, templateID, held, end)
}

// raiseTo raises the claim counter of each user in held to the coupons held[user] when it is lower
// (never lowers one; a concurrent claim's increment is kept), the hash expiring at end (or
// redemptionTTL from now when end has passed), in one script.
func (p *Persister) raiseTo(ctx context.Context, templateID int64, held map[int64]int, end time.Time) error {
	if len(held) == 0 {
		return nil
	}
	if now := p.now(); !end.After(now) {
		end = now.Add(redemptionTTL)
	}
	ks := make([]string, 0, len(held))
	floors := make([]int, 0, len(held))
	for user, n := range held {
		ks = append(ks, keys.ClaimCounter(templateID, user))
		floors = append(floors, n)
	}
	if _, err := lua.ClaimCounterRaise(ctx, p.rdb, ks, floors, end); err != nil {
		return fmt.Errorf("raise claim counters: %w", err)
	}
	return nil
}
