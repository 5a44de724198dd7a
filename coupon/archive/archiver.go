// Package archive moves coupons that ended long ago from the hot table user_coupon to
// user_coupon_archive, so the table every myCoupons page reads holds only recent coupons.
//
// What moves: coupons whose status is EXPIRED or USED and that became due more than Config.After
// ago. A coupon becomes due by the transition itself, which adds it to the archive's queue
// (archive_due, see coupon/archivedue) in its own transaction: the expiry task or sweep, the
// payment's confirmation, a release or refund that found the coupon past its end, and a FORFEIT
// refund (the coupon stays USED, but its payment no longer stands). The queue's time is the
// transition's (the coupon's updated_at), so nothing earlier can still be undone.
//
// The safety rule: a coupon is kept (left in user_coupon) while a settlement on it is live, i.e.
// LOCKED or PAID (coupon_settlement.live_coupon_id names it). A PAID settlement can be refunded at
// any time (coupon/checkout has no refund window), and a refund reads and may rewrite the coupon
// row, so a USED coupon whose payment stands is never moved out from under it. Its queue entry is
// dropped: a FORFEIT refund queues it again; a RETURN refund makes it UNUSED, and its next end
// queues it again.
//
// How: batches of Config.BatchSize queue entries, oldest first over the index (ended_at, id). Each
// batch is a plain read of the next due entries, then one short READ COMMITTED transaction per
// user shard of their users (Config.UserShards; one on one database): in the transitions' own
// order (coupon row first, queue entry second), a locking read of their coupons and of the entries
// again (a transition that committed since shows its newer time and is left for later), the live
// settlements of the coupons; then a copy by value into the archive, DELETE from user_coupon and
// DELETE of the entries handled, keyed by (user_id, id). A coupon no longer EXPIRED or USED, or
// already gone, only loses its entry; one changed after its entry is due again from its
// updated_at. Every entry a batch looks at is deleted or made younger than the
// cutoff, so a run ends, and a batch never reads past its BatchSize entries, whatever the tables
// hold.
//
// Exactly once: only one archiver runs at a time (a lease), and even two at once cannot move a row
// twice or lose one: the coupons a batch moves are locked by its read, the move and the entries'
// deletion are one transaction (a kill before its commit leaves everything as it was), and the
// archive's primary key is the coupon's id.
//
// Redis: after a batch commits, its coupons' expiry-bucket members are removed. Losing that
// clean-up breaks nothing: an expiry bucket task drops a member whose coupon is gone.
package archive

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"coupond/coupon/expiry"
	"coupond/coupon/keys"
	"coupond/coupon/lease"
	"coupond/defaults"
	"coupond/ent"
	"coupond/ent/archivedue"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// Config tunes the archiver; zero fields take the defaults.
type Config struct {
	// After is how long a coupon stays in user_coupon after it became EXPIRED or USED. Default
	// defaults.ArchiveAfter.
	After time.Duration
	// BatchSize is the most rows one transaction looks at (moves or keeps). Default
	// defaults.ArchiveBatch.
	BatchSize int
	// LeaseTTL is the archiver's lease: a killed archiver keeps others out at most this long. Default 30s.
	LeaseTTL time.Duration
	// UserShards is how many shards the user tables are split into (COUPON_MYSQL_USER_SHARDS): a
	// batch is one transaction per user shard of its entries. Default 1.
	UserShards int
}

func (c Config) withDefaults() Config {
	if c.After <= 0 {
		c.After = defaults.ArchiveAfter
	}
	if c.BatchSize <= 0 {
		c.BatchSize = defaults.ArchiveBatch
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 30 * time.Second
	}
	return c
}

// Archiver moves old EXPIRED and USED coupons to user_coupon_archive; see the package comment.
type Archiver struct {
	db  *ent.Client
	rdb redis.UniversalClient
	cfg Config
	now func() time.Time

	afterBatch   func()              // test hook: called after each committed batch
	beforeCommit func(*ent.Tx) error // test hook: called before each batch's commit
}

// New returns an Archiver over the database and the Redis holding its lease, cursors and expiry
// buckets.
func New(db *ent.Client, rdb redis.UniversalClient, cfg Config) *Archiver {
	return &Archiver{db: db, rdb: rdb, cfg: cfg.withDefaults(), now: time.Now}
}

// Result is what one run did.
type Result struct {
	Moved   int  // rows moved to the archive
	Kept    int  // rows looked at and left: a live settlement may still act on them
	Batches int  // committed batches
	Busy    bool // another archiver held the lease: this run did nothing
}

// Run archives every due coupon, batch by batch, until none is left or ctx ends (the next run
// goes on from the queue). It takes the archiver's lease first; when another archiver holds it,
// Run returns at once with Busy set.
func (a *Archiver) Run(ctx context.Context) (Result, error) {
	ctx, release, err := lease.Take(ctx, a.rdb, keys.ArchiveLease(), a.cfg.LeaseTTL)
	if err != nil {
		return Result{}, fmt.Errorf("archive: %w", err)
	}
	if release == nil {
		return Result{Busy: true}, nil
	}
	defer release()
	return a.run(ctx)
}

// run is Run's work without the lease.
func (a *Archiver) run(ctx context.Context) (Result, error) {
	start := time.Now()
	var res Result
	cutoff := a.now().UTC().Add(-a.cfg.After)
	for {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("archive: stopped: %w", context.Cause(ctx))
		}
		b, err := a.batch(ctx, cutoff)
		res.Moved += len(b.moved) // what its committed groups did, even when a later one failed
		res.Kept += b.kept
		for _, r := range b.moved {
			movedTotal.WithLabelValues(string(r.status)).Inc()
		}
		keptTotal.Add(float64(b.kept))
		a.cleanUp(ctx, b.moved)
		if err != nil {
			return res, err
		}
		if b.looked == 0 {
			break
		}
		res.Batches++
		batchesTotal.Inc()
		if a.afterBatch != nil {
			a.afterBatch()
		}
		if b.looked < a.cfg.BatchSize {
			break
		}
	}
	if err := a.backlog(ctx, cutoff); err != nil {
		return res, err
	}
	runSeconds.Set(time.Since(start).Seconds())
	lastRun.SetToCurrentTime()
	return res, nil
}

// batchAttempts bounds the retries of a group transaction that met a deadlock or a lock wait
// timeout (checkout transitions lock the same rows now and then, and so do archivers racing
// without the lease).
const batchAttempts = 10

// groupRetrying runs one group transaction, again after a deadlock or lock wait timeout (rolled
// back whole), after a random pause growing with the attempts, so racing transactions stop meeting
// in step.
func (a *Archiver) groupRetrying(ctx context.Context, refs []ref, cutoff time.Time) (int, []row, error) {
	for attempt := 1; ; attempt++ {
		kept, moved, err := a.group(ctx, refs, cutoff)
		var me *mysql.MySQLError
		if err == nil || attempt == batchAttempts || !errors.As(err, &me) || (me.Number != 1213 && me.Number != 1205) {
			return kept, moved, err
		}
		slog.InfoContext(ctx, "archive: batch retried", "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		case <-time.After(time.Duration(attempt) * time.Duration(5+rand.IntN(20)) * time.Millisecond):
		}
	}
}

// cleanUp removes the moved coupons' expiry-bucket members (best effort: see the package comment).
func (a *Archiver) cleanUp(ctx context.Context, moved []row) {
	if len(moved) == 0 {
		return
	}
	pipe := a.rdb.Pipeline()
	for _, r := range moved {
		pipe.SRem(ctx, keys.ExpiryBucket(r.templateID, expiry.BucketMinute(r.validEnd).Unix()), keys.BucketMember(r.userID, r.id))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		slog.WarnContext(ctx, "archive: expiry buckets not cleaned", "coupons", len(moved), "err", err)
	}
}

// backlog sets the age of the oldest queue entry already due (0 when the run caught up): one
// index dive.
func (a *Archiver) backlog(ctx context.Context, cutoff time.Time) error {
	oldest, err := a.db.ArchiveDue.Query().Where(archivedue.EndedAtLT(cutoff)).
		Order(archivedue.ByEndedAt()).Select(archivedue.FieldEndedAt).First(ctx)
	age := 0.0
	switch {
	case err == nil:
		age = a.now().Sub(oldest.EndedAt).Seconds()
	case !ent.IsNotFound(err):
		return fmt.Errorf("archive: backlog: %w", err)
	}
	backlogSeconds.Set(age)
	return nil
}
