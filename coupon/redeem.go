package coupon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"sync"
	"time"

	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/usercoupon"
	"coupond/idgen"
	"coupond/lua"

	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"
)

// RedeemMode says where a claim is persisted: "async" (default) answers PENDING at once and a
// persister writes claims to MySQL in batches; "sync" writes each claim in the request and answers
// ISSUED with the coupon.
type RedeemMode string

// Redeem modes.
const (
	RedeemAsync RedeemMode = "async"
	RedeemSync  RedeemMode = "sync"
)

// RedeemConfig tunes the claim path.
type RedeemConfig struct {
	Mode RedeemMode
	// TemplateRate is the per-template claim rate each instance admits (token bucket, in process,
	// like the seed's Sentinel hot-parameter rule); HotTemplateRates overrides it per template.
	TemplateRate     float64
	HotTemplateRates map[int64]float64
	// UserRate claim attempts per UserWindow per user and template, counted in the claim script;
	// 0 turns the limit off.
	UserRate   int
	UserWindow time.Duration
	// RequestTTL is how long the answer to a requestId is remembered.
	RequestTTL time.Duration
	// MetaTTL is how long template metadata is kept in process between cache reads.
	MetaTTL time.Duration
	// KickEvery is how often accepted claims' templates are handed to the persister (async mode).
	KickEvery time.Duration
}

func (c RedeemConfig) withDefaults() RedeemConfig {
	if c.Mode == "" {
		c.Mode = RedeemAsync
	}
	if c.TemplateRate <= 0 {
		c.TemplateRate = 50_000
	}
	if c.UserWindow <= 0 {
		c.UserWindow = time.Second
	}
	if c.RequestTTL <= 0 {
		c.RequestTTL = 24 * time.Hour
	}
	if c.MetaTTL <= 0 {
		c.MetaTTL = time.Second
	}
	if c.KickEvery <= 0 {
		c.KickEvery = 20 * time.Millisecond
	}
	return c
}

// redemptionTTL is how long a redemption id is remembered in Redis: long enough for the persister
// to record its outcome; the outcome itself lives in MySQL.
const redemptionTTL = 7 * 24 * time.Hour

// RedemptionStatus is where a claim stands.
type RedemptionStatus string

// Redemption statuses.
const (
	RedemptionPending RedemptionStatus = "PENDING"
	RedemptionIssued  RedemptionStatus = "ISSUED"
	RedemptionFailed  RedemptionStatus = "FAILED"
)

// Redemption is one accepted claim.
type Redemption struct {
	ID            string
	Status        RedemptionStatus
	Coupon        *UserCoupon
	FailureReason *string
}

// Redeemer is the flash-sale claim path.
type Redeemer struct {
	db      *ent.Client
	rdb     redis.UniversalClient
	cache   *TemplateCache
	expirer *Expirer
	sched   Scheduler
	buckets *bucketScheduler
	claims  *claimBatcher
	cfg     RedeemConfig
	now     func() time.Time

	meta     sync.Map // template id → *metaEntry
	limiters sync.Map // template id → *rate.Limiter
	dirtyMu  sync.Mutex
	dirty    map[int64]struct{} // templates with claims not yet handed to the persister
}

type metaEntry struct {
	t     *Template
	until time.Time
}

// NewRedeemer returns a Redeemer. In async mode, Run must be running to hand claims to the
// persister promptly (the periodic drain is the safety net).
func NewRedeemer(db *ent.Client, rdb redis.UniversalClient, cache *TemplateCache, expirer *Expirer, sched Scheduler, cfg RedeemConfig) *Redeemer {
	return &Redeemer{db: db, rdb: rdb, cache: cache, expirer: expirer, sched: sched, buckets: newBucketScheduler(sched), claims: newClaimBatcher(rdb), cfg: cfg.withDefaults(),
		now: time.Now, dirty: map[int64]struct{}{}}
}

// Mode is the configured redeem mode.
func (r *Redeemer) Mode() RedeemMode { return r.cfg.Mode }

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// Redeem claims one coupon of the template for the user. A requestId makes the call idempotent:
// the same (user, template, requestId) always gets the first answer the claim script gave.
// Refusals are *Error values with codes NOT_FOUND, NOT_STARTED, ENDED, RATE_LIMITED,
// OUT_OF_STOCK or LIMIT_REACHED; nothing is deducted for them.
func (r *Redeemer) Redeem(ctx context.Context, userID, templateID int64, requestID string) (*Redemption, error) {
	red, err := r.redeem(ctx, userID, templateID, requestID)
	result := "OK"
	if errs := AsErrors(err); errs != nil {
		result = string(errs[0].Code)
	} else if err != nil {
		result = "ERROR"
	}
	claimsTotal.WithLabelValues(result).Inc()
	return red, err
}

func (r *Redeemer) redeem(ctx context.Context, userID, templateID int64, requestID string) (*Redemption, error) {
	if requestID != "" && !requestIDPattern.MatchString(requestID) {
		return nil, &Error{Code: CodeInvalidInput, Field: []string{"input", "requestId"},
			Message: "requestId must be 1 to 64 letters, digits or . _ : -"}
	}
	t, err := r.template(ctx, templateID)
	if err != nil {
		return nil, err
	}
	now := r.now()
	switch t.StatusAt(now) {
	case StatusNotStarted:
		return nil, Errorf(CodeNotStarted, "the claim window opens at %s", t.ValidStart.Format(time.RFC3339))
	case StatusEnded:
		return nil, Errorf(CodeEnded, "this coupon can no longer be claimed")
	}
	if !r.limiter(templateID).Allow() {
		return nil, Errorf(CodeRateLimited, "too many claims right now; try again in a moment")
	}
	res, err := r.runScript(ctx, userID, templateID, requestID, now)
	if err == nil && res.Code == lua.RedeemCacheMissing {
		// The hash expired or was evicted: rebuild it through the lookup chain, then retry once.
		r.meta.Delete(templateID)
		if _, err = r.cache.Get(ctx, templateID); err == nil {
			res, err = r.runScript(ctx, userID, templateID, requestID, now)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("claim script: %w", err)
	}
	if err := refusal(res.Code); err != nil {
		return nil, err
	}
	if r.cfg.Mode == RedeemSync {
		if res.Replayed {
			return r.Redemption(ctx, userID, res.RedemptionID)
		}
		return r.persistNow(ctx, t, userID, requestID, res, now)
	}
	if !res.Replayed {
		r.markDirty(templateID)
	}
	return &Redemption{ID: res.RedemptionID, Status: RedemptionPending}, nil
}

// runScript runs the claim script: one Redis round trip, shared with concurrent claims.
func (r *Redeemer) runScript(ctx context.Context, userID, templateID int64, requestID string, now time.Time) (lua.RedeemResult, error) {
	rid := strconv.FormatInt(templateID, 10) + "-" + strconv.FormatInt(idgen.Next(), 10)
	k := lua.RedeemKeys{
		Template: TemplateKey(templateID), Claims: ClaimCounterKey(templateID, userID),
		Outbox: OutboxKey(templateID), Redemption: RedemptionKey(templateID, rid),
		Rate: UserRateKey(templateID, userID),
	}
	if requestID != "" {
		k.Request = RequestKey(templateID, userID, requestID)
	}
	return r.claims.redeem(ctx, k, lua.RedeemArgs{
		UserID: userID, RedemptionID: rid, Now: now, RequestTTL: r.cfg.RequestTTL,
		RateLimit: r.cfg.UserRate, RateWindow: r.cfg.UserWindow,
		Outbox: r.cfg.Mode == RedeemAsync, RedemptionTTL: redemptionTTL,
	})
}

// refusal maps a script refusal to its typed error (nil for OK).
func refusal(c lua.RedeemCode) error {
	switch c {
	case lua.RedeemOK:
		return nil
	case lua.RedeemOutOfStock:
		return Errorf(CodeOutOfStock, "this coupon is out of stock")
	case lua.RedeemLimitReached:
		return Errorf(CodeLimitReached, "you already hold as many of these coupons as allowed")
	case lua.RedeemNotStarted:
		return Errorf(CodeNotStarted, "the claim window has not opened yet")
	case lua.RedeemEnded:
		return Errorf(CodeEnded, "this coupon can no longer be claimed")
	case lua.RedeemRateLimited:
		return Errorf(CodeRateLimited, "too many attempts; try again in a moment")
	}
	return fmt.Errorf("claim script answered %s", c)
}

// template returns the template's metadata, from process memory when read less than MetaTTL ago.
// The script re-checks status, window and stock from Redis, so a copy a second old is safe.
func (r *Redeemer) template(ctx context.Context, id int64) (*Template, error) {
	now := r.now()
	if e, ok := r.meta.Load(id); ok && now.Before(e.(*metaEntry).until) {
		return e.(*metaEntry).t, nil
	}
	t, err := r.cache.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, Errorf(CodeNotFound, "no such coupon")
	}
	if err != nil {
		return nil, err
	}
	if r.cfg.Mode == RedeemAsync {
		// Keep the template in the index the periodic drain reads (once per MetaTTL, not per claim).
		if err := r.rdb.SAdd(ctx, OutboxIndexKey, id).Err(); err != nil {
			return nil, fmt.Errorf("index outbox: %w", err)
		}
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

func (r *Redeemer) markDirty(id int64) {
	r.dirtyMu.Lock()
	r.dirty[id] = struct{}{}
	r.dirtyMu.Unlock()
}

// Run hands templates with new claims to the persister every KickEvery until ctx ends: one
// enqueue per template per tick, however many claims arrived, so the claim path itself makes no
// second round trip.
func (r *Redeemer) Run(ctx context.Context) {
	tick := time.NewTicker(r.cfg.KickEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.kick(context.WithoutCancel(ctx))
			return
		case <-tick.C:
			r.kick(ctx)
		}
	}
}

func (r *Redeemer) kick(ctx context.Context) {
	r.dirtyMu.Lock()
	ids := r.dirty
	r.dirty = map[int64]struct{}{}
	r.dirtyMu.Unlock()
	for id := range ids {
		if err := r.sched.PersistOutbox(ctx, id); err != nil {
			// The periodic drain picks the outbox up anyway.
			slog.WarnContext(ctx, "could not queue the persister", "template", id, "err", err)
		}
	}
}

// persistNow is sync mode: the seed's transaction in the request (conditional decrement, insert),
// then card bag and expiry. On failure the Redis side is given back (the seed leaked it, D-03).
func (r *Redeemer) persistNow(ctx context.Context, t *Template, userID int64, requestID string, res lua.RedeemResult, now time.Time) (*Redemption, error) {
	var uc *ent.UserCoupon
	err := withTx(ctx, r.db, func(tx *ent.Tx) error {
		n, err := tx.CouponTemplate.Update().
			Where(coupontemplate.ID(t.ID), coupontemplate.StockGTE(1)).AddStock(-1).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return Errorf(CodeOutOfStock, "this coupon is out of stock")
		}
		uc, err = tx.UserCoupon.Create().
			SetID(idgen.Next()).SetUserID(userID).SetTemplateID(t.ID).SetRedemptionID(res.RedemptionID).
			SetCode(newCouponCode()).SetReceiveCount(res.ReceiveCount).SetSource(usercoupon.SourceCLAIM).
			SetValidStartTime(now).SetValidEndTime(couponEnd(t.Consume.ValidityHours, t.ValidEnd, now)).
			SetCreatedAt(now).Save(ctx)
		return err
	}, nil)
	if err != nil {
		// Out of stock in the database (drift): Redis keeps its stock figure; otherwise the
		// claim never happened and Redis gets its stock back too.
		var e *Error
		giveBack := !errors.As(err, &e)
		k := lua.ReleaseKeys{
			Template: TemplateKey(t.ID), Claims: ClaimCounterKey(t.ID, userID),
			Redemption: RedemptionKey(t.ID, res.RedemptionID),
		}
		if requestID != "" {
			k.Request = RequestKey(t.ID, userID, requestID)
		}
		_, rerr := lua.RedeemRelease(ctx, r.rdb, k, giveBack)
		return nil, errors.Join(err, rerr)
	}
	pipe := r.rdb.Pipeline()
	pipe.ZAdd(ctx, CardBagKey(userID), redis.Z{Score: float64(now.UnixMilli()), Member: bagMember(t.ID, uc.ID)})
	r.expirer.AddToBuckets(ctx, pipe, t.ID, userID, uc.ID, uc.ValidEndTime)
	pipe.HIncrBy(ctx, DailyStatsKey(t.ID, now.UTC().Format(time.DateOnly)), "issued", 1)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("card bag: %w", err)
	}
	if err := r.buckets.schedule(ctx, t.ID, BucketMinute(uc.ValidEndTime)); err != nil {
		return nil, fmt.Errorf("schedule expiry: %w", err)
	}
	return &Redemption{ID: res.RedemptionID, Status: RedemptionIssued, Coupon: &UserCoupon{uc}}, nil
}
