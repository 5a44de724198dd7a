// Package checkout spends coupons on orders: the discount rule (Discount), the coupons an order
// can take and the best set of them (Applicable, Best), and the settlement of one coupon on one
// order — Lock, Confirm, Release, Refund — with the lock's expiry (ExpireLock, Sweep).
//
// Every transition is one MySQL transaction of checked compare-and-set writes of the coupon's
// status and the settlement's (a lock: an UPDATE and the settlement's INSERT; the others an
// UPDATE of each row, both or neither; the writes sent in one round trip, see transact), so MySQL
// alone decides who wins a race: no distributed
// lock, no read-then-write. A transition that makes the coupon due for the archive (USED, EXPIRED,
// a FORFEIT refund) queues it in the same transaction (coupon/archivedue). One coupon is in at most one live settlement (LOCKED or PAID) and one
// order carries at most one live coupon per stacking slot, by unique keys. Each transition is
// idempotent per (order, coupon): a repeat — also one racing the first — answers the settlement as
// it stands and changes nothing.
//
// The daily counters and the lock's release task follow the commit, on a context the client
// cannot cancel. Finish, don't undo: before its transaction a call marks itself in the pending
// set (keys.CheckoutPending) and clears its entry once Redis agrees (off its path, in batches:
// clearPending); a transaction whose commit failed replays its entry at once, and Sweep replays entries a crash or a Redis failure left
// (the after-commit work, on the coupon read under its row lock). Every step is idempotent (the counters count each event once, see
// lua.CountOnce), so a replay changes nothing twice.
package checkout

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"coupond/coupon"
	"coupond/defaults"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/ent/usercouponarchive"
	"coupond/store"

	"github.com/redis/go-redis/v9"
)

// Templates gives templates by id (template.Cache's lookup chain).
type Templates interface {
	Get(ctx context.Context, id int64) (*coupon.Template, error)
	GetMany(ctx context.Context, ids []int64) (map[int64]*coupon.Template, error)
}

// Scheduler schedules the release of a lock when it expires; jobs.Queue implements it. A second
// schedule of the same lock (same settlement and expiry) is a no-op.
type Scheduler interface {
	ReleaseLock(ctx context.Context, lock LockRef, at time.Time) error
}

// LockRef names one settlement's lock.
type LockRef struct {
	UserID, OrderID, CouponID, SettlementID int64
}

// Config tunes the service; zero fields take the defaults.
type Config struct {
	LockTTL time.Duration // how long a lock holds a coupon for an unpaid order; default defaults.LockTTL
	// DB, when set, is the pool the checkout runs its transactions on (store.OpenMySQLReadCommitted):
	// its sessions are READ COMMITTED, so a lock's transaction does not set its level first, and
	// its connections take several statements in one query, so a transaction sends START
	// TRANSACTION and its writes in one round trip (transact). Nil: New's db, each transaction
	// setting the level and sending its statements one by one. Reads outside a transaction (the
	// wallet, a coupon's holder, a lock's first read) run on New's db either way, so they never
	// wait for a connection behind transactions in flight.
	DB *sql.DB
}

// Service is the checkout.
type Service struct {
	db        *ent.Client // reads outside a transaction
	txdb      *ent.Client // transactions: over Config.DB, else db
	multi     *sql.DB     // Config.DB: transactions whose writes go in one round trip; nil: one by one
	rdb       redis.UniversalClient
	templates Templates
	sched     Scheduler
	lockTTL   time.Duration
	lockTx    *sql.TxOptions // a lock's transaction: readCommitted, nil on Config.DB (READ COMMITTED sessions)
	now       func() time.Time
	cleared   pendingClears
}

// New returns the checkout over the database, the data Redis, the template lookup and the
// scheduler of lock releases.
func New(db *ent.Client, rdb redis.UniversalClient, templates Templates, sched Scheduler, cfg Config) *Service {
	if cfg.LockTTL <= 0 {
		cfg.LockTTL = defaults.LockTTL
	}
	s := &Service{db: db, txdb: db, rdb: rdb, templates: recentTemplates(templates), sched: sched, lockTTL: cfg.LockTTL, lockTx: readCommitted, now: time.Now}
	if cfg.DB != nil {
		s.txdb, s.multi, s.lockTx = store.Client(cfg.DB), cfg.DB, nil
	}
	return s
}

// Settlement is one coupon's use on one order.
type Settlement struct {
	*ent.CouponSettlement
	// Coupon is the coupon as the call left it, when the call read it; nil otherwise (Coupon
	// reads it).
	Coupon *ent.UserCoupon
}

// Coupon reads the user's coupon (NOT_FOUND when it is not the user's).
func (s *Service) Coupon(ctx context.Context, userID, couponID int64) (*ent.UserCoupon, error) {
	return s.ownCoupon(ctx, userID, couponID)
}

// afterCommitTimeout bounds the Redis work after a commit, which no client cancellation stops.
const afterCommitTimeout = 10 * time.Second

// detached is ctx without its cancellation, bounded by afterCommitTimeout.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), afterCommitTimeout)
}

// readCommitted is the isolation of a lock's transaction: its locking read of the order's live
// settlements then locks only the rows it finds, no gaps, so locks of other orders never wait for
// it. On a pool at the server's default level it costs one more round trip (the driver sets the
// level before START TRANSACTION); Config.DB's sessions are READ COMMITTED already. The other
// transitions update rows by key, which takes no gap lock at either level.
var readCommitted = &sql.TxOptions{Isolation: sql.LevelReadCommitted}

// errCommit marks the error of a transaction whose commit failed: it may have committed.
var errCommit = errors.New("commit")

// inTx runs fn in a transaction (opts nil: the server's default isolation), committing when fn
// returns nil. A deadlock or lock-wait timeout is errLost (the loser reads again); a failed commit
// is errCommit as well.
func (s *Service) inTx(ctx context.Context, opts *sql.TxOptions, fn func(tx *ent.Tx) error) error {
	tx, err := s.txdb.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", lostRace(err))
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return lostRace(err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%w: %w", errCommit, lostRace(err))
	}
	return nil
}

// holder is the user whose coupon couponID the actor names: a USER names its own (the reads that
// follow find another user's coupon NOT_FOUND, as a missing one), a SERVICE any user's coupon —
// its holder, read by id from the coupons and then the archive (a used or expired coupon may have been
// archived since; NOT_FOUND when neither has it). Any other role is NOT_OWNER.
func (s *Service) holder(ctx context.Context, actor coupon.Actor, couponID int64) (int64, error) {
	if _, _, err := named(actor, couponID); err != nil {
		return 0, err
	}
	if actor.Role == coupon.RoleUser {
		return actor.UserID, nil
	}
	uc, err := s.db.UserCoupon.Query().Where(usercoupon.ID(couponID)).Select(usercoupon.FieldUserID).Only(ctx)
	if err == nil {
		return uc.UserID, nil
	}
	if !ent.IsNotFound(err) {
		return 0, fmt.Errorf("the coupon's holder: %w", err)
	}
	ar, err := s.db.UserCouponArchive.Query().Where(usercouponarchive.ID(couponID)).Select(usercouponarchive.FieldUserID).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return 0, coupon.ErrNotFound
	case err != nil:
		return 0, fmt.Errorf("the coupon's holder: %w", err)
	}
	return ar.UserID, nil
}

// named is the condition on user_coupon (SQL text and its arguments) that finds the coupon
// couponID as the actor names it (see holder): a USER's own coupon, any holder's for a SERVICE;
// any other role is NOT_OWNER. It lets a read find the holder and the coupon in one statement.
func named(actor coupon.Actor, couponID int64) (string, []any, error) {
	switch actor.Role {
	case coupon.RoleUser:
		return "`user_coupon`.`user_id` = ? AND `user_coupon`.`id` = ?", []any{actor.UserID, couponID}, nil
	case coupon.RoleService:
		return "`user_coupon`.`id` = ?", []any{couponID}, nil
	}
	return "", nil, coupon.Errorf(coupon.CodeNotOwner, "a %s does not settle coupons", actor.Role)
}

// ownCoupon reads the caller's coupon; another user's coupon is NOT_FOUND, as a missing one.
func (s *Service) ownCoupon(ctx context.Context, userID, couponID int64) (*ent.UserCoupon, error) {
	uc, err := s.db.UserCoupon.Query().Where(usercoupon.UserID(userID), usercoupon.ID(couponID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, coupon.ErrNotFound
	}
	return uc, err
}

// ms is t cut to the millisecond in UTC, as DATETIME(3) keeps it.
func ms(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }
