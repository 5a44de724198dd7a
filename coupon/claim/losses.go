package claim

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"coupond/coupon"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/redemptionfailure"
	"coupond/ent/schematype"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/lua"
	"coupond/store"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/redis/go-redis/v9"
)

// ReasonLost is the failure reason of a claim a Redis restart lost (coupon.ReasonLost).
const ReasonLost = coupon.ReasonLost

var lostTotal = promauto.NewCounter(prometheus.CounterOpts{
	Name: "coupond_claims_lost_total",
	Help: "Claims this instance accepted that a Redis restart lost before MySQL recorded them (recorded FAILED).",
})

// lossWindow is how long an accepted claim is remembered in process: longer than the writes an
// everysec AOF can lose, and than a persister needs to record a claim.
const lossWindow = 10 * time.Second

// recent is one answer of the claim script, remembered for lossWindow: an accepted claim, or a
// refusal the script stored under a requestId.
type recent struct {
	templateID, userID int64
	shards             int    // the template's StockShards
	requestID          string // "" for none
	answer             lua.RedeemResult
	at                 time.Time
}

// lossWatch remembers the claim script's answers of the last lossWindow in this process and, when
// the data Redis restarts (its run_id changes), repairs what the restart lost of them:
//   - accepted claims with no redemption key left and nothing in MySQL are counted
//     (coupond_claims_lost_total), logged, and recorded FAILED with ReasonLost, so their users read
//     a reason instead of an unknown redemption: never silently;
//   - the answers stored under a requestId are stored again, so a replay gets its first answer
//     (for a lost claim: its redemption, FAILED with the reason);
//   - a user's claim counter below the coupons MySQL holds is raised to them.
type lossWatch struct {
	mu     sync.Mutex
	claims []recent // claims[head:] are remembered, oldest first
	head   int
	runID  string
}

// remember notes an answer of the claim script and forgets those older than lossWindow. The
// forgotten front is reused in place once it is half of the slice (each answer is copied once on
// average), so a steady claim rate allocates nothing here.
func (w *lossWatch) remember(templateID int64, shards int, userID int64, requestID string, answer lua.RedeemResult, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.head < len(w.claims) && at.Sub(w.claims[w.head].at) > lossWindow {
		w.claims[w.head] = recent{} // no strings kept alive
		w.head++
	}
	if w.head > 0 && w.head >= len(w.claims)/2 {
		n := copy(w.claims, w.claims[w.head:])
		clear(w.claims[n:])
		w.claims, w.head = w.claims[:n], 0
	}
	w.claims = append(w.claims, recent{templateID, userID, shards, requestID, answer, at})
}

// snapshot returns the remembered claims.
func (w *lossWatch) snapshot() []recent {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]recent(nil), w.claims[w.head:]...)
}

// lossCheckEvery is how often WatchLosses asks the data Redis for its run_id (store.RunIDs: every
// master's on a cluster): soon after a restart or a failover, before claims sell the stock a
// rewound hash shows.
const lossCheckEvery = 200 * time.Millisecond

// WatchLosses checks the data Redis every lossCheckEvery until ctx ends, and after each restart of
// it repairs what the restart lost of this process's recent answers (see lossWatch).
func (r *Redeemer) WatchLosses(ctx context.Context) {
	tick := time.NewTicker(lossCheckEvery)
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

// checkLosses reads the data Redis's run_id (every master's on a cluster: a failover changes it
// too); when it changed since the last check, it repairs
// the cached stocks (template.Cache.RepairStocks), records the remembered claims the restart
// lost and returns how many.
func (r *Redeemer) checkLosses(ctx context.Context) (int, error) {
	runID, err := store.RunIDs(ctx, r.rdb)
	if err != nil {
		return 0, err
	}
	prev := r.losses.runID
	r.losses.runID = runID
	if prev == "" || prev == runID {
		return 0, nil
	}
	if fixed, err := r.cache.RepairStocks(ctx); err != nil {
		slog.WarnContext(ctx, "stock repair after a Redis restart failed", "err", err)
	} else if len(fixed) > 0 {
		slog.WarnContext(ctx, "Redis came back with more stock than MySQL allows; hashes dropped for an exact rebuild", "templates", fixed)
	}
	return r.repair(ctx)
}

// repair restores what a Redis restart lost of the remembered answers (see lossWatch) and returns
// how many claims it lost.
func (r *Redeemer) repair(ctx context.Context) (int, error) {
	recent := r.losses.snapshot()
	if err := r.restoreAnswers(ctx, recent); err != nil {
		return 0, err
	}
	if err := r.resyncCounters(ctx, recent); err != nil {
		return 0, err
	}
	return r.recordLost(ctx, recent)
}

// restoreAnswers stores again the answers of requestId calls whose request key the restart lost:
// the latest remembered of each (a sync claim's refusal after the script's acceptance).
func (r *Redeemer) restoreAnswers(ctx context.Context, recent []recent) error {
	for _, c := range slices.Backward(recent) {
		if c.requestID == "" {
			continue
		}
		k := keys.UserStock(c.templateID, c.userID, c.shards).Request(c.userID, c.requestID)
		if _, err := lua.RestoreAnswer(ctx, r.rdb, k, c.answer, r.cfg.RequestTTL); err != nil {
			return fmt.Errorf("restore answer: %w", err)
		}
	}
	return nil
}

// resyncCounters raises the claim counter of each user with a recent accepted claim to the coupons
// MySQL holds for them, when the restart left it lower (their claims persisted after Redis's last
// fsync), so Redis refuses what MySQL would.
func (r *Redeemer) resyncCounters(ctx context.Context, recent []recent) error {
	type tpl struct {
		id     int64
		shards int
	}
	users := map[tpl][]int64{} // template → users
	for _, c := range recent {
		if c.answer.Code == lua.RedeemOK {
			t := tpl{c.templateID, c.shards}
			users[t] = append(users[t], c.userID)
		}
	}
	for t, us := range users {
		if err := r.persister.raiseCounters(ctx, t.id, t.shards, us, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

// recordLost records as FAILED (ReasonLost) the claims with no redemption key in Redis that MySQL
// holds no coupon or failure for, so that a claim never ends both ways. Each template's claims
// are decided while a transaction holds the template row FOR UPDATE, so no batch reserves units
// (T1) meanwhile; a batch reserved before with such a claim (its outbox entry read before the
// restart) is fenced first (issue.Fence: its T2s have committed, and their coupons are seen, or
// never will); then one transaction per user shard (recordUndecided) records the claims still
// undecided and commits before the template row is let go. A batch reserved afterwards reads the failures as
// earlier refusals and issues nothing for them.
func (r *Redeemer) recordLost(ctx context.Context, claims []recent) (int, error) {
	var accepted []recent
	for _, c := range claims {
		if c.answer.Code == lua.RedeemOK {
			accepted = append(accepted, c)
		}
	}
	claims = accepted
	pipe := r.rdb.Pipeline()
	exists := make([]*redis.IntCmd, len(claims))
	for i, c := range claims {
		exists[i] = pipe.Exists(ctx, keys.UserStock(c.templateID, c.userID, c.shards).Redemption(c.answer.RedemptionID))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("look up redemptions: %w", err)
	}
	gone := map[int64][]recent{} // template → claims without a redemption key
	for i, c := range claims {
		if exists[i].Val() == 0 {
			gone[c.templateID] = append(gone[c.templateID], c)
		}
	}
	lost := 0
	for templateID, cs := range gone {
		var recorded []recent
		err := store.WithTx(ctx, r.db, func(tx *ent.Tx) error {
			if _, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(templateID)).ForUpdate().Only(ctx); err != nil {
				return fmt.Errorf("lock template %d: %w", templateID, err)
			}
			if err := r.fenceInFlight(ctx, templateID, cs); err != nil {
				return err
			}
			recorded = nil
			for _, g := range store.GroupByUserShard(cs, r.persister.cfg.UserShards, func(c recent) int64 { return c.userID }) {
				rec, err := r.recordUndecided(ctx, g)
				recorded = append(recorded, rec...)
				if err != nil {
					return err
				}
			}
			return nil
		}, nil)
		for _, c := range recorded { // committed, even when a later shard's transaction failed
			lost++
			lostTotal.Inc()
			slog.ErrorContext(ctx, "claim lost by Redis", "template", c.templateID, "user", c.userID, "redemption", c.answer.RedemptionID)
		}
		if err != nil {
			return lost, err
		}
	}
	return lost, nil
}

// fenceInFlight fences the template's OPEN claim batches that hold any of the claims cs
// (issue.Fence), reading the headers as committed now.
func (r *Redeemer) fenceInFlight(ctx context.Context, templateID int64, cs []recent) error {
	rids := make(map[string]bool, len(cs))
	for _, c := range cs {
		rids[c.answer.RedemptionID] = true
	}
	hs, err := r.db.StockBatch.Query().Where(stockbatch.TemplateID(templateID), stockbatch.StateEQ(stockbatch.StateOPEN),
		stockbatch.SourceEQ(stockbatch.SourceCLAIM)).All(ctx)
	if err != nil {
		return fmt.Errorf("open stock batches of %d: %w", templateID, err)
	}
	for _, h := range hs {
		if slices.ContainsFunc(h.Items, func(it schematype.BatchItem) bool { return rids[it.Rid] }) {
			if err := issue.Fence(ctx, r.db, h, r.persister.cfg.UserShards); err != nil {
				return err
			}
		}
	}
	return nil
}

// recordUndecided records as FAILED (ReasonLost), in one transaction, the claims of cs (users of one
// shard) MySQL holds no coupon or failure for, and returns them.
func (r *Redeemer) recordUndecided(ctx context.Context, cs []recent) ([]recent, error) {
	var recorded []recent
	err := store.WithTx(ctx, r.db, func(tx *ent.Tx) error {
		recorded = nil
		for _, c := range cs {
			known, err := decided(ctx, tx, c)
			if err != nil {
				return err
			}
			if known {
				continue
			}
			err = tx.RedemptionFailure.Create().SetUserID(c.userID).SetTemplateID(c.templateID).
				SetRedemptionID(c.answer.RedemptionID).SetReason(ReasonLost).Exec(ctx)
			if err != nil {
				return fmt.Errorf("record lost claim: %w", err)
			}
			recorded = append(recorded, c)
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err // rolled back: nothing recorded
	}
	return recorded, nil
}

// decided reports whether MySQL holds a coupon or a failure for the claim.
func decided(ctx context.Context, tx *ent.Tx, c recent) (bool, error) {
	n, err := tx.UserCoupon.Query().Where(usercoupon.UserID(c.userID), usercoupon.RedemptionID(c.answer.RedemptionID)).Count(ctx)
	if err != nil || n > 0 {
		return n > 0, err
	}
	n, err = tx.RedemptionFailure.Query().Where(redemptionfailure.UserID(c.userID), redemptionfailure.RedemptionID(c.answer.RedemptionID)).Count(ctx)
	return n > 0, err
}
