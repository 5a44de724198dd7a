package expiry

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"coupond/coupon/archivedue"
	"coupond/coupon/keys"
	"coupond/coupon/ledger"
	"coupond/ent"
	"coupond/ent/predicate"
	"coupond/ent/usercoupon"
	"coupond/store"

	"entgo.io/ent/dialect/sql"
	"github.com/redis/go-redis/v9"
)

// Expiry works in buckets: every coupon of one template whose end falls within one minute is a
// member "<user>:<coupon>" of the set keys.ExpiryBucket(template, minute), and one task per bucket
// (scheduled for the minute after) expires them all (asynq schedules months ahead; there is
// no per-coupon delayed message). Sweep is the periodic safety net for coupons no bucket expired.
//
// Both paths move UNUSED → EXPIRED with a conditional UPDATE keyed by (user_id, id) — every
// user_coupon query carries user_id, the sharding rule — then count them in the template's
// realtime stats of their updated_at's stats day (field "expired"). The count is the UPDATE's
// affected rows, so two workers expiring the same coupons count each coupon once. Redis is written
// only after the UPDATE committed, and a bucket member is removed only after that, so a crash
// anywhere leaves the member for the next run (which finds the coupon EXPIRED and counts
// nothing). The one loss a crash can cause is the stats increment of an UPDATE whose Redis write never happened.

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
	// UserShards is how many shards the user tables are split into (COUPON_MYSQL_USER_SHARDS):
	// coupons are expired in transactions of one user shard each. Default 1.
	UserShards int
	// sweepPage is how many coupons one Sweep scan query returns (1000; smaller in tests).
	sweepPage int
}

// NewExpirer returns an Expirer over the database and the Redis holding buckets and stats.
func NewExpirer(db *ent.Client, rdb redis.UniversalClient) *Expirer {
	return &Expirer{db: db, rdb: rdb, now: time.Now, SweepGrace: time.Minute, SweepLimit: 100_000, sweepPage: 1000}
}

// couponRef names one coupon by its sharding key and id.
type couponRef struct{ userID, id int64 }

// ExpireBucket expires the coupons of the template's bucket for the minute starting at minute and
// returns how many this call moved from UNUSED to EXPIRED. Each member's coupon is, after the
// conditional UPDATE committed: still UNUSED (it ends after now: should not happen) → member kept;
// EXPIRED (by this call or earlier), LOCKED, USED, REVOKED or gone → member removed. Malformed members are removed. The bucket key vanishes
// with its last member. It is idempotent (a second run expires 0), safe to run concurrently with
// itself on the same bucket (every coupon expired and counted once), and crash-safe (members are
// removed only after their coupons' UPDATE committed and their Redis clean-up ran).
func (e *Expirer) ExpireBucket(ctx context.Context, templateID int64, minute time.Time) (expired int, err error) {
	key := keys.ExpiryBucket(templateID, BucketMinute(minute).Unix())
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
		userID, id, ok := keys.ParseBucketMember(m)
		ref := couponRef{userID: userID, id: id}
		if !ok {
			slog.WarnContext(ctx, "dropping malformed expiry bucket member", "bucket", key, "member", m)
			drop = append(drop, m)
			continue
		}
		refs = append(refs, ref)
		memberOf[ref] = m
	}
	n, statuses, at, err := e.expire(ctx, templateID, refs, e.now().UTC())
	if err != nil {
		return 0, err
	}
	pipe := e.rdb.Pipeline()
	for _, r := range refs {
		if st, found := statuses[r]; found && st == usercoupon.StatusUNUSED {
			kept[memberOf[r]] = true
			continue
		}
		drop = append(drop, memberOf[r])
	}
	countExpired(ctx, pipe, templateID, at, n)
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

// countExpired queues the increment of the template's "expired" counter of the stats day of at
// (the expired coupons' updated_at), after marking the template touched on that day.
func countExpired(ctx context.Context, pipe redis.Pipeliner, templateID int64, at time.Time, n int) {
	if n > 0 {
		day := keys.StatsDay(at)
		pipe.SAdd(ctx, keys.StatsTouched(day), templateID)
		pipe.HIncrBy(ctx, keys.DailyStats(templateID, day), keys.StatExpired, int64(n))
	}
}

// expire moves the named coupons of the template that are UNUSED and ended at or before cutoff to
// EXPIRED (updated_at = now), in transactions of at most expiryChunk coupons of one user shard
// (UserShards) keyed by (user_id, id), each also adding the coupons it expired to the archive's
// queue (archivedue), and returns how many rows those UPDATEs changed, the status of every named coupon found afterwards (by
// (user_id, id) too), and the updated_at it gave them (the day they are counted on).
func (e *Expirer) expire(ctx context.Context, templateID int64, refs []couponRef, cutoff time.Time) (int, map[couponRef]usercoupon.Status, time.Time, error) {
	now := e.now().UTC().Truncate(time.Millisecond)
	statuses := make(map[couponRef]usercoupon.Status, len(refs))
	// Ascending ids: concurrent UPDATEs of overlapping chunks lock rows in the same order.
	refs = slices.Clone(refs)
	slices.SortFunc(refs, func(a, b couponRef) int { return cmp.Compare(a.id, b.id) })
	total := 0
	for _, group := range store.GroupByUserShard(refs, e.UserShards, func(r couponRef) int64 { return r.userID }) {
		for chunk := range slices.Chunk(group, expiryChunk) {
			n, err := e.expireChunk(ctx, templateID, chunk, cutoff, now, statuses)
			if err != nil {
				return total, nil, now, err
			}
			total += n
		}
	}
	return total, statuses, now, nil
}

// expireChunk is one transaction of expire: the UPDATE, the chunk's statuses read back (into
// statuses), the coupons it expired added to the template's expired ledger (on the chunk's shard,
// under its shard's store.ShardUser) and the queue entries of the coupons it expired (EXPIRED at now: a coupon another
// expirer expired in the same millisecond is queued twice, harmlessly).
func (e *Expirer) expireChunk(ctx context.Context, templateID int64, chunk []couponRef, cutoff, now time.Time, statuses map[couponRef]usercoupon.Status) (int, error) {
	tx, err := e.db.Tx(ctx)
	if err != nil {
		return 0, fmt.Errorf("expire coupons of template %d: begin: %w", templateID, err)
	}
	defer func() { _ = tx.Rollback() }() // a no-op after the commit
	n, err := tx.UserCoupon.Update().
		Where(userCouponRefs(chunk), usercoupon.TemplateID(templateID),
			usercoupon.StatusEQ(usercoupon.StatusUNUSED), usercoupon.ValidEndTimeLTE(cutoff)).
		SetStatus(usercoupon.StatusEXPIRED).SetUpdatedAt(now).
		Save(ctx)
	if err != nil {
		return 0, fmt.Errorf("expire coupons of template %d: %w", templateID, err)
	}
	rows, err := tx.UserCoupon.Query().Where(userCouponRefs(chunk)).
		Select(usercoupon.FieldID, usercoupon.FieldUserID, usercoupon.FieldStatus, usercoupon.FieldUpdatedAt).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("read status of expired coupons of template %d: %w", templateID, err)
	}
	var due []archivedue.Coupon
	for _, r := range rows {
		statuses[couponRef{userID: r.UserID, id: r.ID}] = r.Status
		if r.Status == usercoupon.StatusEXPIRED && r.UpdatedAt.Equal(now) {
			due = append(due, archivedue.Coupon{UserID: r.UserID, ID: r.ID})
		}
	}
	if err := archivedue.Add(ctx, tx, now, due...); err != nil {
		return 0, fmt.Errorf("expire coupons of template %d: %w", templateID, err)
	}
	if err := ledger.AddExpired(ctx, tx, templateID, store.ShardUser(chunk[0].userID, e.UserShards), now, n); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("expire coupons of template %d: commit: %w", templateID, err)
	}
	return n, nil
}

// userCouponRefs matches exactly the named coupons: (user_id, id) IN ((u1, c1), …), plus
// id IN (c1, …) so the primary-key range is used even by an optimizer that does not turn a row
// constructor into a range (MariaDB 10.11 does; a full scan here would lock the whole table), and
// user_id IN (u1, …), which routes the statement to the users' shards on a sharded engine.
func userCouponRefs(refs []couponRef) predicate.UserCoupon {
	ids := make([]int64, len(refs))
	users := make([]int64, len(refs))
	for i, r := range refs {
		ids[i], users[i] = r.id, r.userID
	}
	return usercoupon.And(usercoupon.UserIDIn(users...), usercoupon.IDIn(ids...), func(s *sql.Selector) {
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
