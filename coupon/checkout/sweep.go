package checkout

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/couponsettlement"
	"coupond/ent/usercoupon"

	"github.com/redis/go-redis/v9"
)

const (
	// pendingGrace is how old a pending entry must be before the sweep replays it: a call in
	// flight finishes its own after-commit within afterCommitTimeout.
	pendingGrace = afterCommitTimeout + 5*time.Second
	// expireGrace is how long past its expiry a lock must be before the sweep releases it (its
	// release task runs at the expiry).
	expireGrace = 30 * time.Second
	// sweepBatch bounds the entries and locks one sweep run takes; the rest wait for the next.
	sweepBatch = 1000
)

// SweepResult counts what one sweep did.
type SweepResult struct {
	Replayed int // pending entries replayed
	Released int // expired locks released
}

// Sweep is the checkout's safety net, run periodically: it replays the after-commit of every
// pending entry older than pendingGrace (a crash or a Redis failure between a commit and its
// after-commit work, which is idempotent) and releases every lock expired for more than expireGrace
// whose release task did not run (lost, failed or archived). Safe to run concurrently with itself
// and with the transitions.
func (s *Service) Sweep(ctx context.Context) (SweepResult, error) {
	var res SweepResult
	now := s.now()
	members, err := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{
		Key: keys.CheckoutPending(), Start: "-inf", Stop: strconv.FormatInt(now.Add(-pendingGrace).UnixMilli(), 10),
		ByScore: true, Count: sweepBatch,
	}).Result()
	if err != nil {
		return res, fmt.Errorf("checkout sweep: read the pending set: %w", err)
	}
	for _, m := range members {
		if err := s.replay(ctx, m); err != nil {
			return res, fmt.Errorf("checkout sweep: replay %s: %w", m, err)
		}
		res.Replayed++
	}
	due, err := s.db.CouponSettlement.Query().
		Where(couponsettlement.StatusEQ(couponsettlement.StatusLOCKED), couponsettlement.LockExpiresAtLTE(ms(now.Add(-expireGrace)))).
		Limit(sweepBatch).
		Select(couponsettlement.FieldUserID, couponsettlement.FieldOrderID, couponsettlement.FieldCouponID).
		All(ctx)
	if err != nil {
		return res, fmt.Errorf("checkout sweep: find expired locks: %w", err)
	}
	for _, d := range due {
		st, err := s.ExpireLock(ctx, d.UserID, d.OrderID, d.CouponID)
		if errors.Is(err, ErrNotDue) { // taken again meanwhile, with a new expiry
			continue
		}
		if err != nil {
			return res, fmt.Errorf("checkout sweep: release the lock of coupon %d on order %d: %w", d.CouponID, d.OrderID, err)
		}
		if st != nil {
			res.Released++
		}
	}
	return res, nil
}

// replay redoes the after-commit work of the settlement a pending entry names, as it now stands,
// and drops the entry: it reads the coupon under its row lock (SELECT … FOR UPDATE in a
// transaction, so a transition still running on it has committed or rolled back), then does the
// after-commit work.
func (s *Service) replay(ctx context.Context, member string) error {
	userID, orderID, couponID, ok := keys.ParsePendingMember(member)
	if !ok {
		slog.WarnContext(ctx, "checkout sweep: dropping a malformed pending entry", "member", member)
		return s.rdb.ZRem(ctx, keys.CheckoutPending(), member).Err()
	}
	var uc *ent.UserCoupon
	err := s.inTx(ctx, nil, func(tx *ent.Tx) error {
		var err error
		uc, err = tx.UserCoupon.Query().Where(usercoupon.UserID(userID), usercoupon.ID(couponID)).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return coupon.ErrNotFound
		}
		return err
	})
	if errors.Is(err, coupon.ErrNotFound) { // not a coupon of this user: nothing to redo
		return s.rdb.ZRem(ctx, keys.CheckoutPending(), member).Err()
	}
	if err != nil {
		return err
	}
	row, err := s.settlementOf(ctx, userID, orderID, couponID)
	if errors.Is(err, coupon.ErrNotFound) { // a lock that committed nothing
		return s.rdb.ZRem(ctx, keys.CheckoutPending(), member).Err()
	}
	if err != nil {
		return err
	}
	if err := s.afterCommit(ctx, row, uc); err != nil {
		return err
	}
	return s.rdb.ZRem(ctx, keys.CheckoutPending(), member).Err()
}
