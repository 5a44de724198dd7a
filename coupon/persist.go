package coupon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/redemptionfailure"
	"coupond/ent/usercoupon"
	"coupond/idgen"
	"coupond/lua"

	"github.com/redis/go-redis/v9"
)

// outboxGroup is the consumer group of the persisters on every outbox stream.
const outboxGroup = "persist"

// OutboxIndexKey is the set of template ids whose outbox may hold claims; the periodic drain
// looks there instead of scanning the keyspace.
const OutboxIndexKey = "coupond:outboxes"

// ReasonStockDrift is the failure reason of a claim Redis accepted but the database had no stock for.
const ReasonStockDrift = "the coupon ran out of stock before your claim was recorded"

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
	db      *ent.Client
	rdb     redis.UniversalClient
	expirer *Expirer
	sched   Scheduler
	buckets *bucketScheduler
	cfg     PersistConfig
	now     func() time.Time
}

// NewPersister returns a Persister.
func NewPersister(db *ent.Client, rdb redis.UniversalClient, expirer *Expirer, sched Scheduler, cfg PersistConfig) *Persister {
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
	return &Persister{db: db, rdb: rdb, expirer: expirer, sched: sched, buckets: newBucketScheduler(sched), cfg: cfg, now: time.Now}
}

// claim is one outbox entry.
type claim struct {
	streamID     string
	redemptionID string
	userID       int64
	receiveCount int
	at           time.Time
}

func parseClaim(m redis.XMessage) (claim, error) {
	c := claim{streamID: m.ID}
	str := func(k string) string { s, _ := m.Values[k].(string); return s }
	var err1, err2, err3 error
	c.redemptionID = str("rid")
	c.userID, err1 = strconv.ParseInt(str("user"), 10, 64)
	c.receiveCount, err2 = strconv.Atoi(str("rc"))
	ms, err3 := strconv.ParseInt(str("ts"), 10, 64)
	c.at = time.UnixMilli(ms).UTC()
	if err := errors.Join(err1, err2, err3); err != nil || c.redemptionID == "" {
		return c, fmt.Errorf("outbox entry %s is malformed: %v", m.ID, m.Values)
	}
	return c, nil
}

// Drain persists the template's outbox until it is empty (or MaxRun has passed), first taking
// over claims a crashed persister left unacknowledged. It returns how many claims it handled.
func (p *Persister) Drain(ctx context.Context, templateID int64) (int, error) {
	deadline := time.Now().Add(p.cfg.MaxRun)
	key := OutboxKey(templateID)
	if err := p.rdb.XGroupCreateMkStream(ctx, key, outboxGroup, "0").Err(); err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return 0, fmt.Errorf("create consumer group: %w", err)
	}
	total := 0
	start := "0-0"
	for {
		var msgs []redis.XMessage
		var err error
		if start != "" {
			msgs, start, err = p.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
				Stream: key, Group: outboxGroup, MinIdle: p.cfg.ClaimIdle, Start: start,
				Count: int64(p.cfg.BatchSize), Consumer: p.cfg.Consumer,
			}).Result()
			if start == "0-0" {
				start = "" // the pending list has been walked once
			}
		}
		if err == nil && len(msgs) == 0 && start == "" {
			var streams []redis.XStream
			streams, err = p.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
				Group: outboxGroup, Consumer: p.cfg.Consumer, Streams: []string{key, ">"},
				Count: int64(p.cfg.BatchSize), Block: -1,
			}).Result()
			if errors.Is(err, redis.Nil) {
				return total, nil
			}
			if err == nil && len(streams) > 0 {
				msgs = streams[0].Messages
			}
		}
		if err != nil {
			return total, fmt.Errorf("read outbox: %w", err)
		}
		if len(msgs) == 0 {
			if start == "" {
				return total, nil
			}
			continue
		}
		if err := p.persistBatch(ctx, templateID, msgs); err != nil {
			return total, err
		}
		total += len(msgs)
		if time.Now().After(deadline) {
			return total, nil
		}
	}
}

// batchResult is what one transaction decided.
type batchResult struct {
	issued   []*ent.UserCoupon // new and previously persisted coupons of the batch
	inserted int               // of which new
	drifted  int               // claims newly recorded as failed
	failed   []claim           // claims the database had no stock for (new and previously recorded)
	tpl      *ent.CouponTemplate
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
	pipe.XAck(ctx, OutboxKey(templateID), outboxGroup, ids...)
	pipe.XDel(ctx, OutboxKey(templateID), ids...)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("acknowledge outbox entries: %w", err)
	}
	return nil
}

// commitBatch is the transaction: skip claims already persisted or failed, take the stock for
// the rest from the template row (trimmed to what the database has), insert their coupons in one
// multi-row INSERT and record the claims it could not honour as failed.
func (p *Persister) commitBatch(ctx context.Context, templateID int64, claims []claim) (batchResult, error) {
	var res batchResult
	users := make([]int64, 0, len(claims))
	rids := make([]string, 0, len(claims))
	for _, c := range claims {
		users = append(users, c.userID)
		rids = append(rids, c.redemptionID)
	}
	err := withTx(ctx, p.db, func(tx *ent.Tx) error {
		res = batchResult{}
		tpl, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(templateID)).ForUpdate().Only(ctx)
		if err != nil {
			return fmt.Errorf("lock template %d: %w", templateID, err)
		}
		res.tpl = tpl
		held, err := tx.UserCoupon.Query().
			Where(usercoupon.UserIDIn(users...), usercoupon.TemplateID(templateID)).All(ctx)
		if err != nil {
			return fmt.Errorf("load existing coupons: %w", err)
		}
		failedBefore, err := tx.RedemptionFailure.Query().
			Where(redemptionfailure.UserIDIn(users...), redemptionfailure.RedemptionIDIn(rids...)).
			Select(redemptionfailure.FieldRedemptionID).Strings(ctx)
		if err != nil {
			return fmt.Errorf("load failed claims: %w", err)
		}
		failedSet := map[string]bool{}
		for _, rid := range failedBefore {
			failedSet[rid] = true
		}
		inBatch := map[string]bool{}
		for _, rid := range rids {
			inBatch[rid] = true
		}
		done := map[string]bool{}
		maxRC := map[int64]int{}
		taken := map[[2]int64]bool{}
		for _, uc := range held {
			done[uc.RedemptionID] = true
			maxRC[uc.UserID] = max(maxRC[uc.UserID], uc.ReceiveCount)
			taken[[2]int64{uc.UserID, int64(uc.ReceiveCount)}] = true
		}
		for _, rid := range failedBefore {
			done[rid] = true
		}
		var fresh []claim
		for _, c := range claims {
			switch {
			case !done[c.redemptionID]:
				fresh = append(fresh, c)
				done[c.redemptionID] = true // a claim twice in one batch counts once
			case failedSet[c.redemptionID]:
				res.failed = append(res.failed, c)
			}
		}
		for _, uc := range held {
			if inBatch[uc.RedemptionID] {
				res.issued = append(res.issued, uc)
			}
		}
		k := min(len(fresh), tpl.Stock)
		if k > 0 {
			if err := tx.CouponTemplate.UpdateOneID(templateID).AddStock(-k).Exec(ctx); err != nil {
				return fmt.Errorf("take stock: %w", err)
			}
			builders := make([]*ent.UserCouponCreate, 0, k)
			for _, c := range fresh[:k] {
				rc := c.receiveCount
				// A receive_count already used (Redis lost the user's counter) moves past the
				// user's highest, so the unique key never refuses a legitimate claim.
				if taken[[2]int64{c.userID, int64(rc)}] {
					rc = maxRC[c.userID] + 1
				}
				taken[[2]int64{c.userID, int64(rc)}] = true
				maxRC[c.userID] = max(maxRC[c.userID], rc)
				builders = append(builders, tx.UserCoupon.Create().
					SetID(idgen.Next()).SetUserID(c.userID).SetTemplateID(templateID).
					SetRedemptionID(c.redemptionID).SetCode(newCouponCode()).SetReceiveCount(rc).
					SetSource(usercoupon.SourceCLAIM).SetValidStartTime(c.at).SetValidEndTime(couponEnd(tpl.ConsumeRule.ValidityHours, tpl.ValidEndTime, c.at)).
					SetCreatedAt(c.at))
			}
			inserted, err := tx.UserCoupon.CreateBulk(builders...).Save(ctx)
			if err != nil {
				return fmt.Errorf("insert coupons: %w", err)
			}
			res.issued = append(res.issued, inserted...)
			res.inserted = len(inserted)
		}
		if drift := fresh[k:]; len(drift) > 0 {
			if err := recordDrift(ctx, tx, tpl, drift); err != nil {
				return err
			}
			res.failed = append(res.failed, drift...)
			res.drifted = len(drift)
		}
		return nil
	}, nil)
	return res, err
}

// recordDrift marks claims the database had no stock for as failed and writes an audit entry for
// the reconciliation report (the seed told such users "claimed" and gave them nothing, D-04).
func recordDrift(ctx context.Context, tx *ent.Tx, tpl *ent.CouponTemplate, drift []claim) error {
	builders := make([]*ent.RedemptionFailureCreate, len(drift))
	for i, c := range drift {
		builders[i] = tx.RedemptionFailure.Create().SetUserID(c.userID).SetTemplateID(tpl.ID).
			SetRedemptionID(c.redemptionID).SetReason(ReasonStockDrift)
	}
	if err := tx.RedemptionFailure.CreateBulk(builders...).Exec(ctx); err != nil {
		return fmt.Errorf("record failed claims: %w", err)
	}
	err := tx.CouponTemplateLog.Create().SetShopNumber(tpl.ShopNumber).SetTemplateID(tpl.ID).
		SetActorID(0).SetActorRole("SYSTEM").SetAction(ActionStockDrift).
		SetBefore(map[string]any{"databaseStock": tpl.Stock}).
		SetAfter(map[string]any{"failedClaims": len(drift)}).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record drift: %w", err)
	}
	slog.WarnContext(ctx, "stock drift: Redis accepted claims the database has no stock for",
		"template", tpl.ID, "failed", len(drift))
	return nil
}

// followUp does the Redis side of a committed batch: card-bag entries keyed by the claim's user
// (never a request context, D-01), expiry buckets, realtime stats and the give-back of failed
// claims (idempotent through the redemption key). Then it schedules the expiry buckets.
func (p *Persister) followUp(ctx context.Context, templateID int64, res batchResult) error {
	for _, c := range res.failed {
		_, err := lua.RedeemRelease(ctx, p.rdb, lua.ReleaseKeys{
			Template: TemplateKey(templateID), Claims: ClaimCounterKey(templateID, c.userID),
			Redemption: RedemptionKey(templateID, c.redemptionID),
		}, false)
		if err != nil {
			return fmt.Errorf("give back failed claim: %w", err)
		}
	}
	if len(res.issued) == 0 {
		return nil
	}
	pipe := p.rdb.Pipeline()
	minutes := map[time.Time]bool{}
	for _, uc := range res.issued {
		pipe.ZAdd(ctx, CardBagKey(uc.UserID), redis.Z{Score: float64(uc.CreatedAt.UnixMilli()), Member: bagMember(templateID, uc.ID)})
		p.expirer.AddToBuckets(ctx, pipe, templateID, uc.UserID, uc.ID, uc.ValidEndTime)
		minutes[BucketMinute(uc.ValidEndTime)] = true
	}
	if res.inserted > 0 {
		pipe.HIncrBy(ctx, DailyStatsKey(templateID, p.now().UTC().Format(time.DateOnly)), "issued", int64(res.inserted))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("card bags and expiry buckets: %w", err)
	}
	for m := range minutes {
		if err := p.buckets.schedule(ctx, templateID, m); err != nil {
			return fmt.Errorf("schedule expiry: %w", err)
		}
	}
	return nil
}

// bagMember is a card-bag member: "<template>_<coupon>".
func bagMember(templateID, couponID int64) string {
	return strconv.FormatInt(templateID, 10) + "_" + strconv.FormatInt(couponID, 10)
}

// NonEmptyOutboxes returns the templates whose outbox holds claims (pending or unread), from the
// outbox index, dropping templates from the index whose cache is gone and outbox is empty (ended).
func (p *Persister) NonEmptyOutboxes(ctx context.Context) ([]int64, error) {
	members, err := p.rdb.SMembers(ctx, OutboxIndexKey).Result()
	if err != nil {
		return nil, err
	}
	pipe := p.rdb.Pipeline()
	lens := make([]*redis.IntCmd, len(members))
	exists := make([]*redis.IntCmd, len(members))
	ids := make([]int64, len(members))
	for i, m := range members {
		ids[i], _ = strconv.ParseInt(m, 10, 64)
		lens[i] = pipe.XLen(ctx, OutboxKey(ids[i]))
		exists[i] = pipe.Exists(ctx, TemplateKey(ids[i]))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	var out []int64
	for i, id := range ids {
		switch {
		case lens[i].Val() > 0:
			out = append(out, id)
		case exists[i].Val() == 0:
			p.rdb.SRem(ctx, OutboxIndexKey, members[i])
		}
	}
	return out, nil
}
