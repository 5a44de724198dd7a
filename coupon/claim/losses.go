package claim

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/redemptionfailure"
	"coupond/ent/usercoupon"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/redis/go-redis/v9"
)

// ReasonLost is the failure reason of a claim Redis accepted and then lost with its last second of
// writes (an AOF fsynced every second, a power loss) before the persister recorded it.
const ReasonLost = "your claim was lost in a storage failure before it was recorded; please claim again"

var lostTotal = promauto.NewCounter(prometheus.CounterOpts{
	Name: "coupond_claims_lost_total",
	Help: "Claims this instance accepted that a Redis restart lost before MySQL recorded them (recorded FAILED).",
})

// lossWindow is how long an accepted claim is remembered in process: longer than the writes an
// everysec AOF can lose, and than a persister needs to record a claim.
const lossWindow = 10 * time.Second

// recent is one accepted claim, remembered for lossWindow.
type recent struct {
	templateID, userID int64
	redemptionID       string
	at                 time.Time
}

// lossWatch remembers the claims this process accepted in the last lossWindow and, when the data
// Redis restarts (its run_id changes), finds those the restart lost: no redemption key in Redis and
// nothing in MySQL. They are counted (coupond_claims_lost_total), logged, and recorded FAILED with
// ReasonLost, so their users read a reason instead of an unknown redemption: never silently.
type lossWatch struct {
	mu     sync.Mutex
	claims []recent // oldest first
	runID  string
}

// remember notes an accepted claim.
func (w *lossWatch) remember(templateID, userID int64, rid string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	cut := 0
	for cut < len(w.claims) && at.Sub(w.claims[cut].at) > lossWindow {
		cut++
	}
	w.claims = append(w.claims[cut:], recent{templateID, userID, rid, at})
}

// snapshot returns the remembered claims.
func (w *lossWatch) snapshot() []recent {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]recent(nil), w.claims...)
}

// WatchLosses checks the data Redis every second until ctx ends, and after each restart of it
// records the claims this process accepted that the restart lost (see lossWatch).
func (r *Redeemer) WatchLosses(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if n, err := r.checkLosses(ctx); err != nil {
				slog.WarnContext(ctx, "claim loss check failed", "err", err)
			} else if n > 0 {
				slog.ErrorContext(ctx, "a Redis restart lost accepted claims; they are recorded FAILED", "lost", n)
			}
		}
	}
}

// checkLosses reads the data Redis's run_id; when it changed since the last check, it reconciles
// the cached stocks (template.Cache.ReconcileStocks), records the remembered claims the restart
// lost and returns how many.
func (r *Redeemer) checkLosses(ctx context.Context) (int, error) {
	info, err := r.rdb.InfoMap(ctx, "server").Result()
	if err != nil {
		return 0, err
	}
	runID := info["Server"]["run_id"]
	prev := r.losses.runID
	r.losses.runID = runID
	if prev == "" || prev == runID {
		return 0, nil
	}
	if fixed, err := r.cache.ReconcileStocks(ctx); err != nil {
		slog.WarnContext(ctx, "stock reconciliation after a Redis restart failed", "err", err)
	} else if len(fixed) > 0 {
		slog.WarnContext(ctx, "Redis came back with more stock than MySQL allows; hashes dropped for an exact rebuild", "templates", fixed)
	}
	return r.recordLost(ctx, r.losses.snapshot())
}

// recordLost records as FAILED (ReasonLost) the claims with no redemption key in Redis that MySQL
// holds no coupon or failure for.
func (r *Redeemer) recordLost(ctx context.Context, claims []recent) (int, error) {
	pipe := r.rdb.Pipeline()
	exists := make([]*redis.IntCmd, len(claims))
	for i, c := range claims {
		exists[i] = pipe.Exists(ctx, keys.Redemption(c.templateID, c.redemptionID))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("look up redemptions: %w", err)
	}
	lost := 0
	for i, c := range claims {
		if exists[i].Val() == 1 {
			continue
		}
		known, err := r.recorded(ctx, c)
		if err != nil {
			return lost, err
		}
		if known {
			continue
		}
		err = r.db.RedemptionFailure.Create().SetUserID(c.userID).SetTemplateID(c.templateID).
			SetRedemptionID(c.redemptionID).SetReason(ReasonLost).Exec(ctx)
		if err != nil && !ent.IsConstraintError(err) { // recorded meanwhile: not lost
			return lost, fmt.Errorf("record lost claim: %w", err)
		}
		if err == nil {
			lost++
			lostTotal.Inc()
			slog.ErrorContext(ctx, "claim lost by Redis", "template", c.templateID, "user", c.userID, "redemption", c.redemptionID)
		}
	}
	return lost, nil
}

// recorded reports whether MySQL holds a coupon or a failure for the claim.
func (r *Redeemer) recorded(ctx context.Context, c recent) (bool, error) {
	n, err := r.db.UserCoupon.Query().Where(usercoupon.UserID(c.userID), usercoupon.RedemptionID(c.redemptionID)).Count(ctx)
	if err != nil || n > 0 {
		return n > 0, err
	}
	n, err = r.db.RedemptionFailure.Query().Where(redemptionfailure.UserID(c.userID), redemptionfailure.RedemptionID(c.redemptionID)).Count(ctx)
	return n > 0, err
}
