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
	"coupond/lua"

	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"
)

// undo follows a transition whose transaction failed with err: when its commit failed (it may
// have committed) it replays the pending entry at once, which finishes what the commit started
// (else the sweep does); otherwise nothing happened and it drops the entry.
func (s *Service) undo(ctx context.Context, member string, err error) {
	ctx, cancel := detached(ctx)
	defer cancel()
	if !errors.Is(err, errCommit) {
		s.clearPending(member)
		return
	}
	if err := s.replay(ctx, member); err != nil {
		slog.WarnContext(ctx, "checkout: pending entry left for the sweep", "member", member, "err", err)
	}
}

// finishAfterCommit does the after-commit work of a committed settlement row, then drops
// the pending member (clearPending): the payment, refund and expiry the row records are counted
// once each in their day's stats (a refund in its payment's day), the lock in the template's locked counter; a LOCKED settlement's release is scheduled. It runs on a
// context the client cannot cancel; a failure is logged and leaves the member for the sweep,
// which does it again (replay).
func (s *Service) finishAfterCommit(ctx context.Context, row *ent.CouponSettlement, uc *ent.UserCoupon, member string) {
	ctx, cancel := detached(ctx)
	defer cancel()
	if err := s.afterCommit(ctx, row, uc); err != nil {
		slog.WarnContext(ctx, "checkout: after-commit left for the sweep", "settlement", row.ID, "err", err)
		return
	}
	s.clearPending(member)
}

// afterCommit is the after-commit work for row and its coupon uc as committed: its counters in
// one pipeline (one round trip), then the release of a LOCKED settlement's lock.
func (s *Service) afterCommit(ctx context.Context, row *ent.CouponSettlement, uc *ent.UserCoupon) error {
	if err := lua.Pipelined(ctx, s.rdb, func(p redis.Pipeliner) { countEvents(ctx, p, row, uc) }); err != nil {
		return fmt.Errorf("count settlement %d: %w", row.ID, err)
	}
	if row.Status == couponsettlement.StatusLOCKED && row.LockExpiresAt != nil {
		ref := LockRef{UserID: row.UserID, OrderID: row.OrderID, CouponID: row.CouponID, SettlementID: row.ID}
		if err := s.sched.ReleaseLock(ctx, ref, *row.LockExpiresAt); err != nil {
			return fmt.Errorf("schedule the lock's release: %w", err)
		}
	}
	return nil
}

// countEvents queues on p the counting of what row and its coupon uc record: the lock (countLock),
// and the payment, refund and expiry once each in their day's stats (a refund in its payment's
// day).
func countEvents(ctx context.Context, p redis.Pipeliner, row *ent.CouponSettlement, uc *ent.UserCoupon) {
	countLock(ctx, p, row)
	c := cents(row.DiscountAmount)
	if row.PaidAt != nil {
		count(ctx, p, row, "paid", *row.PaidAt, lua.Increment{Field: keys.StatUsed, By: 1},
			lua.Increment{Field: keys.StatDiscountCents, By: c})
	}
	// A refund moves its payment from used to refunded on the day of the payment (stats are net).
	if row.RefundedAt != nil && row.PaidAt != nil {
		count(ctx, p, row, "refunded", *row.PaidAt, lua.Increment{Field: keys.StatUsed, By: -1},
			lua.Increment{Field: keys.StatDiscountCents, By: -c}, lua.Increment{Field: keys.StatRefunded, By: 1},
			lua.Increment{Field: keys.StatRefundedDiscountCents, By: c})
	}
	// A release or refund that found the coupon past its end made it EXPIRED in the same
	// transaction (both rows carry that transaction's time).
	released := row.Status == couponsettlement.StatusCANCELED || row.Status == couponsettlement.StatusREFUNDED
	if released && uc.Status == usercoupon.StatusEXPIRED && uc.UpdatedAt.Equal(row.UpdatedAt) {
		count(ctx, p, row, "expired", uc.UpdatedAt, lua.Increment{Field: keys.StatExpired, By: 1})
	}
}

// CountLock keeps the template's locked counter (keys.StatsLive) for the settlement as row shows
// it. Each lock of a settlement (it may be locked again after a release) is one event named by the
// settlement and its lock expiry: +1 once while or after it is held, and −1 once after it ended
// (PAID, CANCELED or REFUNDED), always after its +1. So the counter is the locks held now, whatever
// replays or races: a lock whose after-commit never ran and that ended since is counted neither
// way. A lock again after a release first counts the release (relock), so a release whose own
// after-commit never ran cannot leave its lock counted. After a Redis flush (markers and counter gone together) counting the settlements LOCKED in
// MySQL again restores it exactly (coupon/stats), racing after-commits included.
func CountLock(ctx context.Context, rdb redis.UniversalClient, row *ent.CouponSettlement) error {
	if err := lua.Pipelined(ctx, rdb, func(p redis.Pipeliner) { countLock(ctx, p, row) }); err != nil {
		return fmt.Errorf("count lock: %w", err)
	}
	return nil
}

// countLock queues CountLock's scripts on p, the +1 before the −1 (one Redis runs them in order).
func countLock(ctx context.Context, p redis.Pipeliner, row *ent.CouponSettlement) {
	if row.LockExpiresAt == nil {
		return
	}
	lock := strconv.FormatInt(row.ID, 10) + ":" + strconv.FormatInt(row.LockExpiresAt.UnixMilli(), 10)
	live := keys.StatsLive(row.TemplateID)
	lua.CountOnceIn(ctx, p, live, keys.Counted(row.TemplateID, "lock:"+lock), keys.CountedTTL, lua.Increment{Field: keys.StatLocked, By: 1})
	if row.Status != couponsettlement.StatusLOCKED {
		lua.CountOnceIn(ctx, p, live, keys.Counted(row.TemplateID, "unlock:"+lock), keys.CountedTTL, lua.Increment{Field: keys.StatLocked, By: -1})
	}
}

// count queues on p one event of the settlement (incs) for the template's stats of at's stats day,
// counted once however often it is replayed, and the day's mark as touched.
func count(ctx context.Context, p redis.Pipeliner, row *ent.CouponSettlement, event string, at time.Time, incs ...lua.Increment) {
	day := keys.StatsDay(at)
	p.SAdd(ctx, keys.StatsTouched(day), row.TemplateID)
	marker := keys.Counted(row.TemplateID, strconv.FormatInt(row.ID, 10)+":"+event)
	lua.CountOnceIn(ctx, p, keys.DailyStats(row.TemplateID, day), marker, keys.CountedTTL, incs...)
}

// cents is a money amount (2 decimals) in cents.
func cents(d decimal.Decimal) int64 { return d.Shift(2).IntPart() }

// settlementOf reads the settlement of (order, coupon); coupon.ErrNotFound when there is none.
func (s *Service) settlementOf(ctx context.Context, userID, orderID, couponID int64) (*ent.CouponSettlement, error) {
	row, err := querySettlement(ctx, s.db, settlementByRef, userID, orderID, couponID)
	if ent.IsNotFound(err) {
		return nil, coupon.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read settlement: %w", err)
	}
	return row, nil
}

// settlementFor reads the settlement of (order, coupon) of the coupon's holder as actor names it
// (see holder), in one statement when the coupon is in user_coupon: a SERVICE's read finds the
// holder by a subquery on the coupon's id. A coupon found in neither place, or whose settlement
// is missing, is NOT_FOUND (a SERVICE's miss asks holder, which also reads the archive).
func (s *Service) settlementFor(ctx context.Context, actor coupon.Actor, orderID, couponID int64) (*ent.CouponSettlement, error) {
	if _, _, err := named(actor, couponID); err != nil {
		return nil, err
	}
	if actor.Role == coupon.RoleUser {
		return s.settlementOf(ctx, actor.UserID, orderID, couponID)
	}
	row, err := querySettlement(ctx, s.db, settlementByCoupon, orderID, couponID, couponID)
	switch {
	case err == nil:
		return row, nil
	case !ent.IsNotFound(err):
		return nil, fmt.Errorf("read settlement: %w", err)
	}
	userID, err := s.holder(ctx, actor, couponID)
	if err != nil {
		return nil, err
	}
	return s.settlementOf(ctx, userID, orderID, couponID)
}
