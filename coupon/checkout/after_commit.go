package checkout

import (
	"context"
	"crypto/rand"
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

// countedTTL is how long a counted event's marker lives: far longer than any replay comes.
const countedTTL = 8 * 24 * time.Hour

// journal records a transition about to run on (order, coupon) in the pending set and returns
// its member. A call whose journal fails does not run: its Redis side could be lost.
func (s *Service) journal(ctx context.Context, userID, orderID, couponID int64) (string, error) {
	m := keys.PendingMember(userID, orderID, couponID, rand.Text()[:10])
	if err := s.rdb.ZAdd(ctx, keys.CheckoutPending(), redis.Z{Score: float64(s.now().UnixMilli()), Member: m}).Err(); err != nil {
		return "", fmt.Errorf("checkout: journal: %w", err)
	}
	return m, nil
}

// unjournal drops the member of a transition that committed nothing.
func (s *Service) unjournal(ctx context.Context, member string) {
	ctx, cancel := detached(ctx)
	defer cancel()
	if err := s.rdb.ZRem(ctx, keys.CheckoutPending(), member).Err(); err != nil {
		slog.WarnContext(ctx, "checkout: journal entry left for the sweep", "member", member, "err", err)
	}
}

// settle makes Redis agree with a committed settlement row and its coupon uc, then drops the
// journal member (when not ""): the payment, refund and expiry the row records are counted once
// each in their day's stats; a LOCKED settlement's release is scheduled; the coupon is in its
// user's card bag exactly when it is UNUSED and valid. It runs on a context the client cannot
// cancel; a failure is logged and leaves the member for the sweep, which calls settleRedis again.
func (s *Service) settle(ctx context.Context, row *ent.CouponSettlement, uc *ent.UserCoupon, member string) {
	ctx, cancel := detached(ctx)
	defer cancel()
	if err := s.settleRedis(ctx, row, uc, member); err != nil {
		slog.WarnContext(ctx, "checkout: after-commit left for the sweep", "settlement", row.ID, "err", err)
	}
}

// settleRedis is settle's work; the member is dropped last, only when everything before it was
// done (for a coupon leaving the card bag, in the same pipeline after the removal).
func (s *Service) settleRedis(ctx context.Context, row *ent.CouponSettlement, uc *ent.UserCoupon, member string) error {
	if row.PaidAt != nil {
		if err := s.count(ctx, row, "paid", *row.PaidAt, keys.StatUsed, keys.StatDiscountCents); err != nil {
			return err
		}
	}
	if row.RefundedAt != nil {
		if err := s.count(ctx, row, "refunded", *row.RefundedAt, keys.StatRefunded, keys.StatRefundedDiscountCents); err != nil {
			return err
		}
	}
	// A release or refund that found the coupon past its end made it EXPIRED in the same
	// transaction (both rows carry that transaction's time).
	released := row.Status == couponsettlement.StatusCANCELED || row.Status == couponsettlement.StatusREFUNDED
	if released && uc.Status == usercoupon.StatusEXPIRED && uc.UpdatedAt.Equal(row.UpdatedAt) {
		if err := s.count(ctx, row, "expired", uc.UpdatedAt, keys.StatExpired, ""); err != nil {
			return err
		}
	}
	if row.Status == couponsettlement.StatusLOCKED && row.LockExpiresAt != nil {
		ref := LockRef{UserID: row.UserID, OrderID: row.OrderID, CouponID: row.CouponID, SettlementID: row.ID}
		if err := s.sched.ReleaseLock(ctx, ref, *row.LockExpiresAt); err != nil {
			return fmt.Errorf("schedule the lock's release: %w", err)
		}
	}
	return s.syncBag(ctx, uc, member)
}

// count adds one event of the settlement (and its discount in cents, when centsField is set) to
// the template's stats of at's UTC day, once however often it is replayed.
func (s *Service) count(ctx context.Context, row *ent.CouponSettlement, event string, at time.Time, countField, centsField string) error {
	incs := []lua.Increment{{Field: countField, By: 1}}
	if centsField != "" {
		incs = append(incs, lua.Increment{Field: centsField, By: cents(row.DiscountAmount)})
	}
	stats := keys.DailyStats(row.TemplateID, at.UTC().Format(time.DateOnly))
	marker := keys.Counted(row.TemplateID, strconv.FormatInt(row.ID, 10)+":"+event)
	if _, err := lua.CountOnce(ctx, s.rdb, stats, marker, countedTTL, incs...); err != nil {
		return fmt.Errorf("count %s: %w", event, err)
	}
	return nil
}

// cents is a money amount (2 decimals) in cents.
func cents(d decimal.Decimal) int64 { return d.Shift(2).IntPart() }

// syncBag puts the coupon in its user's card bag when it is UNUSED and valid, else takes it out,
// then drops the journal member (when not ""). An addition is checked against the database
// afterwards and undone when the coupon left UNUSED meanwhile (a lock that committed while this
// ran): whatever the order of the two, the bag ends as the database is.
func (s *Service) syncBag(ctx context.Context, uc *ent.UserCoupon, member string) error {
	bag, m := keys.CardBag(uc.UserID), keys.BagMember(uc.TemplateID, uc.ID)
	if uc.Status != usercoupon.StatusUNUSED || !s.now().Before(uc.ValidEndTime) {
		pipe := s.rdb.Pipeline()
		rem := pipe.ZRem(ctx, bag, m)
		if member != "" {
			pipe.ZRem(ctx, keys.CheckoutPending(), member)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			if rem.Err() != nil {
				return fmt.Errorf("card bag: %w", err)
			}
			slog.WarnContext(ctx, "checkout: journal entry left for the sweep", "member", member, "err", err)
		}
		return nil
	}
	if err := s.rdb.ZAdd(ctx, bag, redis.Z{Score: float64(uc.CreatedAt.UnixMilli()), Member: m}).Err(); err != nil {
		return fmt.Errorf("card bag: %w", err)
	}
	now, err := s.ownCoupon(ctx, uc.UserID, uc.ID)
	if err != nil {
		return fmt.Errorf("card bag: check the coupon: %w", err)
	}
	if now.Status != usercoupon.StatusUNUSED {
		return s.syncBag(ctx, now, member)
	}
	if member != "" {
		if err := s.rdb.ZRem(ctx, keys.CheckoutPending(), member).Err(); err != nil {
			slog.WarnContext(ctx, "checkout: journal entry left for the sweep", "member", member, "err", err)
		}
	}
	return nil
}

// settlementOf reads the settlement of (order, coupon); coupon.ErrNotFound when there is none.
func (s *Service) settlementOf(ctx context.Context, userID, orderID, couponID int64) (*ent.CouponSettlement, error) {
	row, err := s.db.CouponSettlement.Query().
		Where(couponsettlement.UserID(userID), couponsettlement.OrderID(orderID), couponsettlement.CouponID(couponID)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, coupon.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read settlement: %w", err)
	}
	return row, nil
}
