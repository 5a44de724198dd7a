package coupon

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"coupond/ent"
	"coupond/ent/predicate"
	"coupond/ent/usercoupon"

	"entgo.io/ent/dialect/sql"
	"github.com/redis/go-redis/v9"
)

// Expiry works in buckets: every coupon of one template whose end falls within one minute is a
// member "<user>:<coupon>" of the set ExpiryBucketKey(template, minute), and one task per bucket
// (scheduled for the minute after) expires them all (D-17: asynq schedules months ahead, there is
// no per-coupon delayed message). Sweep is the periodic safety net for coupons no bucket expired.
//
// Both paths move UNUSED → EXPIRED with a conditional UPDATE keyed by (user_id, id) — every
// user_coupon query carries user_id, the sharding rule — then remove the coupons' card-bag entries
// and count them in the template's realtime stats of the current UTC day (field "expired"), as the
// persister counts "issued". The count is the UPDATE's affected rows, so two workers expiring the
// same coupons count each coupon once. Redis is written only after the UPDATE committed, and a
// bucket member is removed only after that, so a crash anywhere leaves the member for the next run
// (which finds the coupon EXPIRED, removes the card-bag entry again and counts nothing). The one
// loss a crash can cause is the stats increment of an UPDATE whose Redis write never happened.

const (
	// expiryChunk is the most coupons one UPDATE names.
	expiryChunk = 500
	// expiryScanCount is the SSCAN COUNT hint when reading a bucket.
	expiryScanCount = 500
	// expiryPasses bounds the re-reads of a bucket that gained members while it was being expired.
	expiryPasses = 3
	// expiryBucketTTL is how long a bucket key outlives its minute (or its last addition), so a
	// bucket whose task never ran does not stay in Redis forever; Sweep expires its coupons.
	expiryBucketTTL = 7 * 24 * time.Hour
)

// Expirer moves coupons past their end from UNUSED to EXPIRED; see ExpireBucket and Sweep.
type Expirer struct {
	db  *ent.Client
	rdb redis.UniversalClient
	now func() time.Time

	// SweepGrace is how long past its end a coupon must be before Sweep takes it (the bucket task
	// runs a minute after the bucket's minute; the sweep leaves that minute to it). Default 1m.
	SweepGrace time.Duration
	// SweepLimit bounds the coupons one Sweep run expires; the rest wait for the next run.
	// Default 100,000.
	SweepLimit int
	// sweepPage is how many coupons one Sweep scan query returns (1000; smaller in tests).
	sweepPage int
}

// NewExpirer returns an Expirer over the database and the Redis holding buckets, card bags and stats.
func NewExpirer(db *ent.Client, rdb redis.UniversalClient) *Expirer {
	return &Expirer{db: db, rdb: rdb, now: time.Now, SweepGrace: time.Minute, SweepLimit: 100_000, sweepPage: 1000}
}

// BucketMinute is the expiry bucket of a coupon ending at end: the start of end's minute, in UTC.
func BucketMinute(end time.Time) time.Time { return end.UTC().Truncate(time.Minute) }

// bucketMember is a bucket member: "<user>:<coupon>".
func bucketMember(userID, couponID int64) string {
	return strconv.FormatInt(userID, 10) + ":" + strconv.FormatInt(couponID, 10)
}

// AddToBuckets queues on pipe the commands that put a coupon ending at end into its expiry bucket
// (BucketMinute(end)) and make the bucket key expire 7 days after its minute (or after now, for a
// bucket already past). It does not schedule the bucket's task: the caller asks its Scheduler for
// ExpireBucket(templateID, BucketMinute(end)) once the pipeline has run. Call it only after the
// coupon's row is committed, so the bucket never names a coupon the database does not have.
func (e *Expirer) AddToBuckets(ctx context.Context, pipe redis.Pipeliner, templateID, userID, couponID int64, end time.Time) {
	minute := BucketMinute(end)
	key := ExpiryBucketKey(templateID, minute.Unix())
	pipe.SAdd(ctx, key, bucketMember(userID, couponID))
	pipe.ExpireAt(ctx, key, latest(minute, e.now()).Add(expiryBucketTTL))
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// couponRef names one coupon by its sharding key and id.
type couponRef struct{ userID, id int64 }

// ExpireBucket expires the coupons of the template's bucket for the minute starting at minute and
// returns how many this call moved from UNUSED to EXPIRED. Each member's coupon is, after the
// conditional UPDATE committed: EXPIRED (by this call or earlier) → card-bag entry removed, member
// removed; still UNUSED (it ends after now: should not happen) → member kept; LOCKED, USED, REVOKED
// or gone → left as it is, member removed. Malformed members are removed. The bucket key vanishes
// with its last member. It is idempotent (a second run expires 0), safe to run concurrently with
// itself on the same bucket (every coupon expired and counted once), and crash-safe (members are
// removed only after their coupons' UPDATE committed and their Redis clean-up ran).
func (e *Expirer) ExpireBucket(ctx context.Context, templateID int64, minute time.Time) (expired int, err error) {
	key := ExpiryBucketKey(templateID, BucketMinute(minute).Unix())
	kept := map[string]bool{}
	for pass := 0; pass < expiryPasses; pass++ {
		seen := map[string]bool{}
		var cursor uint64
		for {
			members, next, err := e.rdb.SScan(ctx, key, cursor, "", expiryScanCount).Result()
			if err != nil {
				return expired, fmt.Errorf("read expiry bucket %s: %w", key, err)
			}
			fresh := members[:0]
			for _, m := range members { // SSCAN may return a member twice
				if !seen[m] && !kept[m] {
					seen[m] = true
					fresh = append(fresh, m)
				}
			}
			for chunk := range slices.Chunk(fresh, expiryChunk) {
				n, err := e.expireMembers(ctx, key, templateID, chunk, kept)
				expired += n
				if err != nil {
					return expired, err
				}
			}
			if cursor = next; cursor == 0 {
				break
			}
		}
		// Members added while we scanned (a late persister whose enqueue met this running task)
		// are taken by another pass; what remains beyond the kept members is left to Sweep.
		left, err := e.rdb.SCard(ctx, key).Result()
		if err != nil {
			return expired, fmt.Errorf("count expiry bucket %s: %w", key, err)
		}
		if left <= int64(len(kept)) {
			break
		}
	}
	return expired, nil
}

// expireMembers expires one chunk of a bucket's members; it adds the members to keep to kept.
func (e *Expirer) expireMembers(ctx context.Context, key string, templateID int64, members []string, kept map[string]bool) (int, error) {
	refs := make([]couponRef, 0, len(members))
	memberOf := make(map[couponRef]string, len(members))
	var drop []any
	for _, m := range members {
		ref, ok := parseBucketMember(m)
		if !ok {
			slog.WarnContext(ctx, "dropping malformed expiry bucket member", "bucket", key, "member", m)
			drop = append(drop, m)
			continue
		}
		refs = append(refs, ref)
		memberOf[ref] = m
	}
	now := e.now().UTC()
	n, statuses, err := e.expire(ctx, templateID, refs, now)
	if err != nil {
		return 0, err
	}
	pipe := e.rdb.Pipeline()
	for _, r := range refs {
		switch st, found := statuses[r]; {
		case found && st == usercoupon.StatusUNUSED:
			kept[memberOf[r]] = true
			continue
		case found && st == usercoupon.StatusEXPIRED:
			pipe.ZRem(ctx, CardBagKey(r.userID), bagMember(templateID, r.id))
		}
		drop = append(drop, memberOf[r])
	}
	countExpired(ctx, pipe, templateID, now, n)
	if len(drop) > 0 {
		pipe.SRem(ctx, key, drop...) // last, so a failed clean-up leaves the members for a re-run
	}
	if pipe.Len() > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return n, fmt.Errorf("clean up after expiring %d coupons of bucket %s: %w", n, key, err)
		}
	}
	return n, nil
}

// parseBucketMember reads "<user>:<coupon>".
func parseBucketMember(m string) (couponRef, bool) {
	u, c, ok := strings.Cut(m, ":")
	if !ok {
		return couponRef{}, false
	}
	userID, err1 := strconv.ParseInt(u, 10, 64)
	id, err2 := strconv.ParseInt(c, 10, 64)
	if err1 != nil || err2 != nil || userID <= 0 || id <= 0 {
		return couponRef{}, false
	}
	return couponRef{userID: userID, id: id}, true
}

// countExpired queues the increment of the template's "expired" counter of now's UTC day.
func countExpired(ctx context.Context, pipe redis.Pipeliner, templateID int64, now time.Time, n int) {
	if n > 0 {
		pipe.HIncrBy(ctx, DailyStatsKey(templateID, now.UTC().Format(time.DateOnly)), "expired", int64(n))
	}
}

// expire moves the named coupons of the template that are UNUSED and ended at or before cutoff to
// EXPIRED (updated_at = now), in UPDATEs of at most expiryChunk coupons keyed by (user_id, id), and
// returns how many rows those UPDATEs changed and the status of every named coupon found
// afterwards (by (user_id, id) too).
func (e *Expirer) expire(ctx context.Context, templateID int64, refs []couponRef, cutoff time.Time) (int, map[couponRef]usercoupon.Status, error) {
	now := e.now().UTC()
	statuses := make(map[couponRef]usercoupon.Status, len(refs))
	// Ascending ids: concurrent UPDATEs of overlapping chunks lock rows in the same order.
	refs = slices.Clone(refs)
	slices.SortFunc(refs, func(a, b couponRef) int { return cmp.Compare(a.id, b.id) })
	total := 0
	for chunk := range slices.Chunk(refs, expiryChunk) {
		n, err := e.db.UserCoupon.Update().
			Where(userCouponRefs(chunk), usercoupon.TemplateID(templateID),
				usercoupon.StatusEQ(usercoupon.StatusUNUSED), usercoupon.ValidEndTimeLTE(cutoff)).
			SetStatus(usercoupon.StatusEXPIRED).SetUpdatedAt(now).
			Save(ctx)
		if err != nil {
			return total, nil, fmt.Errorf("expire coupons of template %d: %w", templateID, err)
		}
		total += n
		rows, err := e.db.UserCoupon.Query().Where(userCouponRefs(chunk)).
			Select(usercoupon.FieldID, usercoupon.FieldUserID, usercoupon.FieldStatus).All(ctx)
		if err != nil {
			return total, nil, fmt.Errorf("read status of expired coupons of template %d: %w", templateID, err)
		}
		for _, r := range rows {
			statuses[couponRef{userID: r.UserID, id: r.ID}] = r.Status
		}
	}
	return total, statuses, nil
}

// userCouponRefs matches exactly the named coupons: (user_id, id) IN ((u1, c1), …), plus
// id IN (c1, …) so the primary-key range is used even by an optimizer that does not turn a row
// constructor into a range (MariaDB 10.11 does; a full scan here would lock the whole table).
func userCouponRefs(refs []couponRef) predicate.UserCoupon {
	ids := make([]int64, len(refs))
	for i, r := range refs {
		ids[i] = r.id
	}
	return usercoupon.And(usercoupon.IDIn(ids...), func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteByte('(').Ident(s.C(usercoupon.FieldUserID)).Comma().Ident(s.C(usercoupon.FieldID)).WriteString(") IN (")
			for i, r := range refs {
				if i > 0 {
					b.Comma()
				}
				b.WriteByte('(').Args(r.userID, r.id).WriteByte(')')
			}
			b.WriteByte(')')
		}))
	})
}

// Sweep is the safety net for coupons no bucket expired (a lost or failed bucket task, a member
// added while its task ran): it expires every UNUSED coupon that ended at least SweepGrace ago,
// the same way ExpireBucket does (conditional UPDATE by (user_id, id), card-bag entry removed,
// counted once in the template's stats), also removing those coupons from their buckets, and
// returns how many it expired. There is no index on (status, valid_end_time) — every user_coupon
// index leads with user_id — so it walks the primary key from the start in pages, letting the
// database filter status and end; a run stops after one pass or SweepLimit coupons, whichever
// comes first. Safe to run concurrently with itself and with bucket tasks.
func (e *Expirer) Sweep(ctx context.Context) (expired int, err error) {
	cutoff := e.now().UTC().Add(-e.SweepGrace)
	var after int64
	seen := 0
	for seen < e.SweepLimit {
		page := min(e.sweepPage, e.SweepLimit-seen)
		rows, err := e.db.UserCoupon.Query().
			Where(usercoupon.IDGT(after), usercoupon.StatusEQ(usercoupon.StatusUNUSED), usercoupon.ValidEndTimeLTE(cutoff)).
			Order(usercoupon.ByID()).Limit(page).
			Select(usercoupon.FieldID, usercoupon.FieldUserID, usercoupon.FieldTemplateID, usercoupon.FieldValidEndTime).
			All(ctx)
		if err != nil {
			return expired, fmt.Errorf("sweep: find ended coupons after id %d: %w", after, err)
		}
		if len(rows) == 0 {
			break
		}
		seen += len(rows)
		after = rows[len(rows)-1].ID
		byTemplate := map[int64][]*ent.UserCoupon{}
		for _, r := range rows {
			byTemplate[r.TemplateID] = append(byTemplate[r.TemplateID], r)
		}
		for templateID, coupons := range byTemplate {
			n, err := e.sweepTemplate(ctx, templateID, coupons, cutoff)
			expired += n
			if err != nil {
				return expired, err
			}
		}
		if len(rows) < page {
			break
		}
	}
	return expired, nil
}

// sweepTemplate expires the given ended coupons of one template and cleans up after them.
func (e *Expirer) sweepTemplate(ctx context.Context, templateID int64, coupons []*ent.UserCoupon, cutoff time.Time) (int, error) {
	refs := make([]couponRef, len(coupons))
	for i, c := range coupons {
		refs[i] = couponRef{userID: c.UserID, id: c.ID}
	}
	n, statuses, err := e.expire(ctx, templateID, refs, cutoff)
	if err != nil {
		return n, fmt.Errorf("sweep: %w", err)
	}
	pipe := e.rdb.Pipeline()
	for _, c := range coupons {
		if statuses[couponRef{userID: c.UserID, id: c.ID}] == usercoupon.StatusEXPIRED {
			pipe.ZRem(ctx, CardBagKey(c.UserID), bagMember(templateID, c.ID))
			pipe.SRem(ctx, ExpiryBucketKey(templateID, BucketMinute(c.ValidEndTime).Unix()), bucketMember(c.UserID, c.ID))
		}
	}
	countExpired(ctx, pipe, templateID, e.now(), n)
	if pipe.Len() > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return n, fmt.Errorf("sweep: clean up after expiring %d coupons of template %d: %w", n, templateID, err)
		}
	}
	return n, nil
}
