package claim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/lua"

	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"
)

// redemptionTTL is how long a redemption id is remembered in Redis: long enough for the persister
// to record its outcome; the outcome itself lives in MySQL.
const redemptionTTL = 7 * 24 * time.Hour

// Scheduler queues the persister of a template's outbox; jobs.Queue implements it. Asking twice
// is harmless (one task per template at a time).
type Scheduler interface {
	PersistOutbox(ctx context.Context, templateID int64) error
}

// Redeemer is the flash-sale claim path.
type Redeemer struct {
	db        *ent.Client
	rdb       redis.UniversalClient
	cache     *template.Cache
	persister *Persister // sync mode finishes its claims with it
	sched     Scheduler
	claims    *claimBatcher
	cfg       Config
	now       func() time.Time

	meta     sync.Map // template id → *metaEntry
	limiters sync.Map // template id → *rate.Limiter
	dirtyMu  sync.Mutex
	dirty    map[int64]struct{} // templates with claims not yet handed to the persister
	losses   lossWatch          // the claims accepted lately, to find those a Redis restart loses
}

type metaEntry struct {
	t     *coupon.Template
	until time.Time
}

// NewRedeemer returns a Redeemer. Run must be running to hand claims to the persister promptly
// (in sync mode, the claims a request could not finish; the periodic drain is the safety net).
func NewRedeemer(db *ent.Client, rdb redis.UniversalClient, cache *template.Cache, persister *Persister, sched Scheduler, cfg Config) *Redeemer {
	r := &Redeemer{db: db, rdb: rdb, cache: cache, persister: persister, sched: sched,
		cfg: cfg.withDefaults(), now: time.Now, dirty: map[int64]struct{}{}}
	r.claims = newClaimBatcher(rdb, lua.Wait{Replicas: r.cfg.WaitReplicas, Timeout: r.cfg.WaitTimeout})
	return r
}

// validRequestID reports whether id is 1 to 64 ASCII letters, digits or . _ : -.
func validRequestID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// claimsOK is the coupond_claims_total counter of accepted claims, resolved once: the label
// lookup is a hash of the label values, on every claim otherwise.
var claimsOK = claimsTotal.WithLabelValues("OK")

// Redeem claims one coupon of the template for the user. A requestId makes the call idempotent:
// the same (user, template, requestId) always gets the claim of the first answer, as it stands now.
// Refusals are *coupon.Error values with codes NOT_FOUND, NOT_STARTED, ENDED, RATE_LIMITED,
// OUT_OF_STOCK or LIMIT_REACHED; nothing is deducted for them. With Config.WaitReplicas, a claim
// taken that the replicas did not acknowledge in time is coupon.ErrUnconfirmed: it is not undone,
// and its retry with the same requestId answers it.
func (r *Redeemer) Redeem(ctx context.Context, userID, templateID int64, requestID string) (*Redemption, error) {
	red, err := r.redeem(ctx, userID, templateID, requestID)
	if err == nil {
		claimsOK.Inc()
	} else if errs := coupon.AsErrors(err); errs != nil {
		claimsTotal.WithLabelValues(string(errs[0].Code)).Inc()
	} else {
		claimsTotal.WithLabelValues("ERROR").Inc()
	}
	return red, err
}

func (r *Redeemer) redeem(ctx context.Context, userID, templateID int64, requestID string) (*Redemption, error) {
	if requestID != "" && !validRequestID(requestID) {
		return nil, coupon.FieldError("requestId", "requestId must be 1 to 64 letters, digits or . _ : -")
	}
	t, err := r.template(ctx, templateID)
	if err != nil {
		return nil, err
	}
	now := r.now()
	switch t.StatusAt(now) {
	case coupon.StatusNotStarted:
		return nil, coupon.Errorf(coupon.CodeNotStarted, "the claim window opens at %s", t.ValidStart.Format(time.RFC3339))
	case coupon.StatusEnded:
		return nil, coupon.Errorf(coupon.CodeEnded, "this coupon can no longer be claimed")
	}
	if !r.limiter(templateID).Allow() {
		return nil, coupon.ErrRateLimited
	}
	res, unconfirmed, err := r.claim(ctx, t, userID, requestID, now)
	if err == nil && res.Code == lua.RedeemCacheMissing {
		// The hash expired or was evicted: rebuild it through the lookup chain, then retry once.
		r.meta.Delete(templateID)
		if _, err = r.cache.Get(ctx, templateID); err == nil {
			res, unconfirmed, err = r.claim(ctx, t, userID, requestID, now)
		}
	}
	if err != nil {
		// The script may have run and put a claim in the outbox before the answer was lost (a client that
		// went away while its claim waited in the batcher, a timeout): the persister finishes it.
		r.markDirty(templateID)
		return nil, fmt.Errorf("claim script: %w", err)
	}
	if stored := res.Code <= lua.RedeemEnded; !res.Replayed && (res.Code == lua.RedeemOK || (requestID != "" && stored)) {
		r.losses.remember(templateID, t.StockShards(), userID, requestID, res, now) // see lossWatch
	}
	if unconfirmed && res.Code == lua.RedeemOK {
		// Only the master has the claim yet: not answered, so a failover cannot lose an answered
		// claim. It stays in the outbox for the persister (or is recorded lost with the rest).
		r.markDirty(templateID)
		return nil, coupon.ErrUnconfirmed
	}
	if err := refusal(res.Code); err != nil {
		if requestID != "" && (res.Code == lua.RedeemOutOfStock || res.Code == lua.RedeemLimitReached) {
			// Refused by stock or limit: maybe a retry whose first answer Redis lost.
			if red, lerr := r.byRequest(ctx, userID, templateID, requestID); red != nil || lerr != nil {
				return red, lerr
			}
		}
		return nil, err
	}
	switch {
	case res.Replayed:
		// A replay answers the claim as it stands now (PENDING, ISSUED with the coupon, or FAILED),
		// so a client's cache never goes back from ISSUED to PENDING; the first answer reads nothing.
		// (A sync claim answered with a refusal has the refusal stored instead: storeRefusal.)
		return r.Redemption(ctx, userID, res.RedemptionID)
	}
	if r.cfg.Mode == ModeSync {
		return r.finishNow(ctx, keys.UserStock(templateID, userID, t.StockShards()), userID, requestID, res, now)
	}
	r.markDirty(templateID)
	return &Redemption{ID: res.RedemptionID, Status: RedemptionPending}, nil
}

// maxBorrows bounds the borrows of one claim on an empty stock shard (each followed by another run
// of the claim script, which concurrent claims of the shard may have emptied again before): a
// safety bound, far above what the end of a sale takes (every borrow moves at least one unit).
const maxBorrows = 64

// claim runs the claim script on the user's stock shard of t. On a template with stock shards, a
// shard found empty borrows units from the reserve or the other shards (template.Cache.Borrow) and
// the script runs again; OUT_OF_STOCK is answered (and stored under the request key) only by a
// run after a borrow found nothing anywhere (template.Cache.BorrowLast: lends a crash left open
// swept back, lends in transit waited for), or after maxBorrows borrows.
func (r *Redeemer) claim(ctx context.Context, t *coupon.Template, userID int64, requestID string, now time.Time) (res lua.RedeemResult, unconfirmed bool, err error) {
	s := keys.UserStock(t.ID, userID, t.StockShards())
	for borrows := 0; ; borrows++ {
		borrowing := s.Count > 1 && borrows < maxBorrows
		res, unconfirmed, err = r.runScript(ctx, s, userID, requestID, now, borrowing)
		if err != nil || !borrowing || res.Code != lua.RedeemOutOfStock {
			return res, unconfirmed, err
		}
		got, err := r.cache.Borrow(ctx, t.ID, s.Index, s.Count)
		if err == nil && got == 0 {
			got, err = r.cache.BorrowLast(ctx, t.ID, s.Index, s.Count)
		}
		if err != nil {
			return res, false, fmt.Errorf("borrow stock: %w", err)
		}
		if got == 0 {
			borrows = maxBorrows - 1 // nothing left anywhere: the next run answers OUT_OF_STOCK
		}
	}
}

// runScript runs the claim script on stock shard s: one Redis round trip, shared with concurrent
// claims (and, with WaitReplicas, its WAIT). borrowing: an OUT_OF_STOCK answer is not stored
// (lua.RedeemArgs.Borrowing). unconfirmed: the script answered res but fewer than WaitReplicas
// replicas acknowledged it in time.
func (r *Redeemer) runScript(ctx context.Context, s keys.Shard, userID int64, requestID string, now time.Time, borrowing bool) (res lua.RedeemResult, unconfirmed bool, err error) {
	rid := newRedemptionID(s)
	k := lua.RedeemKeys{
		Template: s.Stock(), Claims: s.ClaimCounter(userID),
		Outbox: s.Outbox(), Redemption: s.Redemption(rid),
		Rate: s.UserRate(userID),
	}
	if requestID != "" {
		k.Request = s.Request(userID, requestID)
	}
	res, err = r.claims.redeem(ctx, k, lua.RedeemArgs{
		UserID: userID, RedemptionID: rid, Now: now, RequestTTL: r.cfg.RequestTTL,
		RateLimit: r.cfg.UserRate, RateWindow: r.cfg.UserWindow,
		Outbox: true, RedemptionTTL: redemptionTTL, RequestID: requestID, Borrowing: borrowing,
	})
	var short *lua.ReplicaShortfall
	if errors.As(err, &short) {
		return res, true, nil
	}
	return res, false, err
}

// refusal maps a script refusal to its typed error (nil for OK).
func refusal(c lua.RedeemCode) error {
	switch c {
	case lua.RedeemOK:
		return nil
	case lua.RedeemOutOfStock:
		return coupon.Errorf(coupon.CodeOutOfStock, "this coupon is out of stock")
	case lua.RedeemLimitReached:
		return coupon.Errorf(coupon.CodeLimitReached, "you already hold as many of these coupons as allowed")
	case lua.RedeemNotStarted:
		return coupon.Errorf(coupon.CodeNotStarted, "the claim window has not opened yet")
	case lua.RedeemEnded:
		return coupon.Errorf(coupon.CodeEnded, "this coupon can no longer be claimed")
	case lua.RedeemRateLimited:
		return coupon.ErrRateLimited
	}
	return fmt.Errorf("claim script answered %s", c)
}

// template returns the template's metadata, from process memory when read less than MetaTTL ago.
// The script re-checks status, window and stock from Redis, so a copy a second old is safe.
func (r *Redeemer) template(ctx context.Context, id int64) (*coupon.Template, error) {
	now := r.now()
	if e, ok := r.meta.Load(id); ok && now.Before(e.(*metaEntry).until) {
		return e.(*metaEntry).t, nil
	}
	t, err := r.cache.Get(ctx, id)
	if errors.Is(err, coupon.ErrNotFound) {
		return nil, coupon.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	// Keep the template in the index the periodic drain reads (once per MetaTTL, not per claim).
	if err := r.rdb.SAdd(ctx, keys.OutboxIndex(), id).Err(); err != nil {
		return nil, fmt.Errorf("index outbox: %w", err)
	}
	r.meta.Store(id, &metaEntry{t: t, until: now.Add(r.cfg.MetaTTL)})
	return t, nil
}

// limiter returns the template's token bucket.
func (r *Redeemer) limiter(id int64) *rate.Limiter {
	if l, ok := r.limiters.Load(id); ok {
		return l.(*rate.Limiter)
	}
	perSec := r.cfg.TemplateRate
	if hot, ok := r.cfg.HotTemplateRates[id]; ok {
		perSec = hot
	}
	l, _ := r.limiters.LoadOrStore(id, rate.NewLimiter(rate.Limit(perSec), max(int(perSec/10), 1)))
	return l.(*rate.Limiter)
}
