// Package archive moves coupons that ended long ago from the hot table user_coupon to
// user_coupon_archive, so the table every myCoupons page reads holds only recent coupons.
//
// What moves: coupons whose status is EXPIRED or USED and whose updated_at — the moment they
// reached that status: the expiry task or sweep, the payment's confirmation, or a release or
// refund that found the coupon past its end — lies more than Config.After in the past. updated_at
// rather than valid_end_time or used_at, because it is one column for both statuses and it is
// when the coupon's last transition happened: nothing earlier can still be undone.
//
// The safety rule: a coupon is kept (left in user_coupon, for good) while a settlement on it is
// live, i.e. LOCKED or PAID (coupon_settlement.live_coupon_id names it). A PAID settlement can be
// refunded at any time (coupon/checkout has no refund window), and a refund reads and may rewrite
// the coupon row, so a USED coupon whose payment stands is never moved out from under it. A
// refunded (or cancelled) settlement no longer acts on its coupon and does not keep it. The walk
// does not come back to a kept coupon: one whose payment is refunded later under FORFEIT (it stays
// USED, its updated_at unchanged) stays in user_coupon until a walk starts over (a lost cursor).
//
// How: a walk per status over the index (status, updated_at, id), in batches of Config.BatchSize.
// Each batch is one short READ COMMITTED transaction: a locking read of the next rows after the
// cursor (record locks only, no gap locks), the live settlements of those rows, then
// INSERT … SELECT into the archive and DELETE of the same rows, keyed by (user_id, id). A batch
// examines at most BatchSize index entries whatever the table holds (EXPLAIN in the tests), and
// its cursor (the last row it looked at, kept in Redis) is where the next batch starts, in this
// run or the next one, also after a kill: the walk never rescans what it passed. Rows appear in a
// walk only ahead of the cursor (a coupon's updated_at is the time of its last change, and the
// cursor stays Config.After behind now), so a kept coupon is never looked at again.
//
// Exactly once: only one archiver runs at a time (a lease), and even two at once cannot move a row
// twice or lose one: the rows a batch moves are locked by its read, the move is one transaction,
// and the archive's primary key is the coupon's id. A lost cursor (Redis flushed) costs one
// rescan, nothing else.
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
	"strconv"
	"strings"
	"time"

	"coupond/coupon/expiry"
	"coupond/coupon/keys"
	"coupond/coupon/lease"
	"coupond/defaults"
	"coupond/ent"
	"coupond/ent/usercoupon"

	stdsql "database/sql"

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

	afterBatch func() // test hook: called after each committed batch
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

// walked are the statuses archived, each walked on its own stretch of the index.
var walked = []usercoupon.Status{usercoupon.StatusEXPIRED, usercoupon.StatusUSED}

// Run archives every eligible coupon, batch by batch, until none is left or ctx ends (the next run
// resumes at the cursor). It takes the archiver's lease first; when another archiver holds it,
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
	for _, st := range walked {
		if err := a.walk(ctx, st, cutoff, &res); err != nil {
			return res, err
		}
	}
	runSeconds.Set(time.Since(start).Seconds())
	lastRun.SetToCurrentTime()
	return res, nil
}

// walk archives the coupons of status st that reached it before cutoff, from the saved cursor on.
func (a *Archiver) walk(ctx context.Context, st usercoupon.Status, cutoff time.Time, res *Result) error {
	cur, err := a.cursor(ctx, st)
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("archive %s: stopped at %s: %w", st, cur, context.Cause(ctx))
		}
		b, err := a.batchRetrying(ctx, st, cur, cutoff)
		if err != nil {
			return err
		}
		if b.looked == 0 {
			return a.backlog(ctx, st, cur, cutoff)
		}
		res.Batches++
		res.Moved += len(b.moved)
		res.Kept += b.looked - len(b.moved)
		batchesTotal.Inc()
		movedTotal.WithLabelValues(string(st)).Add(float64(len(b.moved)))
		keptTotal.Add(float64(b.looked - len(b.moved)))
		cur = b.next
		if err := a.rdb.Set(ctx, keys.ArchiveCursor(string(st)), cur.String(), 0).Err(); err != nil {
			// The batch is committed; a lost cursor only makes the next run walk these rows again.
			slog.WarnContext(ctx, "archive: cursor not saved", "status", st, "cursor", cur, "err", err)
		}
		a.cleanUp(ctx, b.moved)
		if a.afterBatch != nil {
			a.afterBatch()
		}
		if b.looked < a.cfg.BatchSize {
			return a.backlog(ctx, st, cur, cutoff)
		}
	}
}

// cursor is a position in the walk of one status: the (updated_at, id) of the last row looked at.
type cursor struct {
	at time.Time
	id int64
}

func (c cursor) String() string {
	return strconv.FormatInt(c.at.UnixMilli(), 10) + ":" + strconv.FormatInt(c.id, 10)
}

func parseCursor(s string) (cursor, bool) {
	ms, id, ok := strings.Cut(s, ":")
	if !ok {
		return cursor{}, false
	}
	m, err1 := strconv.ParseInt(ms, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if err1 != nil || err2 != nil || n < 0 {
		return cursor{}, false
	}
	return cursor{at: time.UnixMilli(m).UTC(), id: n}, true
}

// cursor reads the saved cursor of status st; none (or a malformed one) is the walk's start.
func (a *Archiver) cursor(ctx context.Context, st usercoupon.Status) (cursor, error) {
	s, err := a.rdb.Get(ctx, keys.ArchiveCursor(string(st))).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return cursor{at: time.UnixMilli(0).UTC()}, nil
	case err != nil:
		return cursor{}, fmt.Errorf("archive: read cursor of %s: %w", st, err)
	}
	c, ok := parseCursor(s)
	if !ok {
		slog.WarnContext(ctx, "archive: malformed cursor, walking from the start", "status", st, "cursor", s)
		return cursor{at: time.UnixMilli(0).UTC()}, nil
	}
	return c, nil
}

// batchAttempts bounds the retries of a batch that met a deadlock or a lock wait timeout (checkout
// transitions lock the same rows in another order now and then, and so do archivers racing
// without the lease).
const batchAttempts = 10

// batchRetrying runs one batch, again after a deadlock or lock wait timeout (rolled back whole),
// after a random pause growing with the attempts, so racing transactions stop meeting in step.
func (a *Archiver) batchRetrying(ctx context.Context, st usercoupon.Status, cur cursor, cutoff time.Time) (batch, error) {
	for attempt := 1; ; attempt++ {
		b, err := a.batch(ctx, st, cur, cutoff)
		var me *mysql.MySQLError
		if err == nil || attempt == batchAttempts || !errors.As(err, &me) || (me.Number != 1213 && me.Number != 1205) {
			return b, err
		}
		slog.InfoContext(ctx, "archive: batch retried", "status", st, "cursor", cur, "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return b, ctx.Err()
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

// backlog sets the age of the oldest coupon of status st past the cursor that is already due
// (0 when the walk has caught up): one index dive.
func (a *Archiver) backlog(ctx context.Context, st usercoupon.Status, cur cursor, cutoff time.Time) error {
	var at stdsql.NullTime
	rows, err := a.db.QueryContext(ctx, "SELECT updated_at FROM user_coupon FORCE INDEX ("+walkIndex+") "+
		"WHERE status = ? AND updated_at < ? AND "+afterCursor+" ORDER BY updated_at, id LIMIT 1",
		string(st), cutoff, cur.at, cur.at, cur.id)
	if err != nil {
		return fmt.Errorf("archive: backlog of %s: %w", st, err)
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(&at); err != nil {
			return fmt.Errorf("archive: backlog of %s: %w", st, err)
		}
	}
	age := 0.0
	if at.Valid {
		age = a.now().Sub(at.Time).Seconds()
	}
	backlogSeconds.WithLabelValues(string(st)).Set(age)
	return rows.Err()
}
