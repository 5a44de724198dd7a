package checkout

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"coupond/coupon"
	"coupond/coupon/archivedue"
	"coupond/coupon/ledger"
	"coupond/ent"
	"coupond/ent/couponsettlement"
	"coupond/ent/coupontemplate"
	"coupond/ent/usercoupon"

	"github.com/shopspring/decimal"
)

// Confirm records the order's payment, as the order system (a SERVICE actor; anyone else is
// NOT_OWNER) charged orderAmount: the settlement LOCKED → PAID (paidAt set) and the coupon
// LOCKED → USED (usedAt set), both checked CAS in one transaction — the settlement's CAS also
// on the locked order's amount, so a payment is never recorded for another amount than the one
// locked; after the commit the payment is counted in the template's daily stats. An orderAmount
// other than the locked order's (compared by value) is AMOUNT_MISMATCH and changes nothing. A lock
// past its expiry is EXPIRED, never a silent success; a repeat after the payment answers the PAID
// settlement; any other state is INVALID_STATE naming it.
func (s *Service) Confirm(ctx context.Context, actor coupon.Actor, orderID, couponID int64, orderAmount decimal.Decimal) (*Settlement, error) {
	if actor.Role != coupon.RoleService {
		return nil, errServiceOnly
	}
	return s.transition(ctx, actor, orderID, couponID, confirm, &orderAmount)
}

// Release gives the coupon back: the settlement LOCKED → CANCELED and the coupon LOCKED → UNUSED
// (EXPIRED when its validity ended meanwhile). A repeat answers the
// CANCELED settlement; a PAID or REFUNDED one is INVALID_STATE. The actor is the coupon's USER
// or a SERVICE (see holder).
func (s *Service) Release(ctx context.Context, actor coupon.Actor, orderID, couponID int64) (*Settlement, error) {
	return s.transition(ctx, actor, orderID, couponID, release, nil)
}

// Refund undoes a paid order's use of the coupon: the settlement PAID → REFUNDED (refundedAt
// set); with the template's RETURN policy the coupon USED → UNUSED again (EXPIRED when its
// validity has ended: a refund never revives an expired coupon), with FORFEIT it stays USED.
// A repeat answers the REFUNDED settlement; any other state is INVALID_STATE. Only the order
// system (a SERVICE actor) refunds; anyone else is NOT_OWNER.
func (s *Service) Refund(ctx context.Context, actor coupon.Actor, orderID, couponID int64) (*Settlement, error) {
	if actor.Role != coupon.RoleService {
		return nil, errServiceOnly
	}
	return s.transition(ctx, actor, orderID, couponID, refund, nil)
}

// errServiceOnly refuses a payment or refund that does not come from the order system.
var errServiceOnly = coupon.Errorf(coupon.CodeNotOwner, "only the order system (a SERVICE token) confirms payments and refunds")

// ErrNotDue is ExpireLock's answer for a lock that has not expired yet (its task ran early: clock
// skew); the task retries later.
var ErrNotDue = errors.New("checkout: the lock has not expired yet")

// ExpireLock releases the lock of (order, coupon) when it has expired (the lock's release task
// and the sweep call it) and returns the CANCELED settlement; a settlement no longer LOCKED is left
// alone (nil, nil), a lock not expired yet too (nil, ErrNotDue).
func (s *Service) ExpireLock(ctx context.Context, userID, orderID, couponID int64) (*Settlement, error) {
	holder := coupon.Actor{UserID: userID, Role: coupon.RoleUser} // the lock's own user
	st, err := s.transition(ctx, holder, orderID, couponID, expire, nil)
	if errs := coupon.AsErrors(err); len(errs) == 1 && errs[0].Code != coupon.CodeNotFound {
		return nil, nil // the settlement moved on: nothing to release
	}
	return st, err
}

// kind is one transition of a settlement.
type kind int

const (
	confirm kind = iota
	release
	refund
	expire // release of an expired lock
)

func (k kind) String() string {
	return [...]string{"confirm", "release", "refund", "expire"}[k]
}

// from and to are the settlement states of the transition.
func (k kind) from() couponsettlement.Status {
	if k == refund {
		return couponsettlement.StatusPAID
	}
	return couponsettlement.StatusLOCKED
}

func (k kind) to() couponsettlement.Status {
	return [...]couponsettlement.Status{couponsettlement.StatusPAID, couponsettlement.StatusCANCELED,
		couponsettlement.StatusREFUNDED, couponsettlement.StatusCANCELED}[k]
}

// transition runs k on the settlement of (order, coupon) of the coupon's holder as actor names
// it (see holder), reading again after a lost race. A confirm passes the order's amount as
// charged (amount), nil for the other kinds.
func (s *Service) transition(ctx context.Context, actor coupon.Actor, orderID, couponID int64, k kind, amount *decimal.Decimal) (*Settlement, error) {
	for attempt := 1; ; attempt++ {
		st, err := s.transitionOnce(ctx, actor, orderID, couponID, k, amount)
		if !errors.Is(err, errLost) || attempt == casAttempts {
			return st, err
		}
	}
}

func (s *Service) transitionOnce(ctx context.Context, actor coupon.Actor, orderID, couponID int64, k kind, amount *decimal.Decimal) (*Settlement, error) {
	row, err := s.settlementFor(ctx, actor, orderID, couponID)
	if err != nil {
		return nil, err
	}
	userID := row.UserID
	if amount != nil && !amount.Equal(row.OrderAmount) {
		return nil, amountMismatch(row, *amount)
	}
	now := ms(s.now())
	if row.Status != k.from() {
		return s.answer(ctx, row, k)
	}
	if k == confirm && !now.Before(*row.LockExpiresAt) {
		return nil, lockExpired(row)
	}
	if k == expire && now.Before(*row.LockExpiresAt) {
		return nil, fmt.Errorf("%w (it holds until %s)", ErrNotDue, row.LockExpiresAt.Format(time.RFC3339Nano))
	}
	// A confirmation needs nothing of the coupon but its ids; the others read its validity.
	uc := &ent.UserCoupon{ID: couponID, UserID: userID, TemplateID: row.TemplateID}
	if k != confirm {
		if uc, err = s.ownCoupon(ctx, userID, couponID); err != nil {
			return nil, err
		}
	}
	returns := k != confirm
	if k == refund {
		t, err := s.templates.Get(ctx, row.TemplateID)
		if err != nil {
			return nil, fmt.Errorf("refund: template %d: %w", row.TemplateID, err)
		}
		returns = t.RefundPolicy == coupontemplate.RefundPolicyRETURN
	}
	member, err := s.markPending(ctx, userID, orderID, couponID)
	if err != nil {
		return nil, err
	}
	couponTo := usercoupon.StatusUSED
	if returns {
		couponTo = usercoupon.StatusUNUSED
		if !now.Before(uc.ValidEndTime) {
			couponTo = usercoupon.StatusEXPIRED
		}
	}
	var moved *couponMove // nil: FORFEIT, the coupon stays USED
	if k != refund || returns {
		moved = &couponMove{from: usercoupon.StatusLOCKED, to: couponTo, orderID: orderID}
		if k == refund {
			moved.from = usercoupon.StatusUSED
		}
	}
	writes := casWrites(row, k, now, amount, moved)
	if moved == nil || moved.to != usercoupon.StatusUNUSED {
		if moved != nil && moved.to == usercoupon.StatusEXPIRED { // counted on the holder's shard
			q, args := ledger.ExpiredStatement(row.TemplateID, userID, now, 1)
			writes = append(writes, write{what: fmt.Sprintf("%s: settlement %d: expired ledger", k, row.ID), query: q, args: args})
		}
		// USED or EXPIRED, or FORFEIT (USED, now named by no live settlement): due for the archive.
		q, args := archivedue.Statement(now, archivedue.Coupon{UserID: userID, ID: couponID})
		writes = append(writes, write{what: fmt.Sprintf("%s: settlement %d: archive queue", k, row.ID), query: q, args: args})
	}
	err = s.transact(ctx, writes, nil)
	if err != nil {
		s.undo(ctx, member, err)
		return nil, err
	}
	s.applyInMemory(row, k, now)
	if k != refund || returns {
		uc.Status, uc.UpdatedAt = couponTo, now
		if k == confirm {
			uc.UsedAt = &now
		} else {
			uc.OrderID, uc.DiscountAmount, uc.UsedAt = nil, nil, nil
		}
	}
	s.finishAfterCommit(ctx, row, uc, member)
	if k == confirm {
		uc = nil // partial: the API reads it when asked (Service.Coupon)
	}
	return &Settlement{CouponSettlement: row, Coupon: uc}, nil
}

// couponMove is the coupon's side of a transition: from one status (for the order) to another.
type couponMove struct {
	from, to usercoupon.Status
	orderID  int64
}

// casWrites moves the settlement from k.from() to k.to() and, unless c is nil, its coupon as c
// says — each UPDATE a checked compare-and-set in one transaction (transact), so either both rows
// move or neither does (errLost: the transaction rolls back and the caller reads again). A
// confirm, release or expiry moves only the lock row shows (its expiry, which the caller checked
// against now: a confirm only while it holds, an expiry only once it has expired), never a later
// lock of the same settlement (released and locked again since the read, perhaps for another
// amount): the lock counter counts each lock by its expiry (CountLock), so the after-commit of a
// transition that moved a later lock would close the wrong one. A confirm also only for amount.
// A confirm sets the payment's time on both rows; a release, expiry or refund clears the
// settlement's live keys and the coupon's order, discount and use. The two rows share their user_id, so both statements run on one user shard (a
// multi-table UPDATE … JOIN would be one statement, but Vitess refuses it).
func casWrites(row *ent.CouponSettlement, k kind, now time.Time, amount *decimal.Decimal, c *couponMove) []write {
	set := []string{"status = ?", "updated_at = ?"}
	args := []any{string(k.to()), now}
	switch k {
	case confirm:
		set = append(set, "paid_at = ?")
		args = append(args, now)
	case refund:
		set = append(set, "refunded_at = ?", "live_coupon_id = NULL", "live_slot = NULL")
		args = append(args, now)
	default:
		set = append(set, "live_coupon_id = NULL", "live_slot = NULL")
	}
	where := []string{"user_id = ?", "id = ?", "status = ?"}
	args = append(args, row.UserID, row.ID, string(k.from()))
	switch {
	case k == refund:
	case row.LockExpiresAt == nil:
		where = append(where, "lock_expires_at IS NULL")
	default: // the very lock row shows, not a later one of the same settlement (released and locked again meanwhile)
		where = append(where, "lock_expires_at = ?")
		args = append(args, *row.LockExpiresAt)
	}
	if k == confirm {
		where = append(where, "order_amount = ?")
		args = append(args, amount.String())
	}
	writes := []write{updateOne(k, row.ID, "coupon_settlement", set, where, args)}
	if c == nil {
		return writes
	}
	set = []string{"status = ?", "updated_at = ?"}
	args = []any{string(c.to), now}
	if k == confirm {
		set = append(set, "used_at = ?")
		args = append(args, now)
	} else {
		set = append(set, "order_id = NULL", "discount_amount = NULL", "used_at = NULL")
	}
	where = []string{"user_id = ?", "id = ?", "status = ?", "order_id = ?"}
	args = append(args, row.UserID, row.CouponID, string(c.from), c.orderID)
	return append(writes, updateOne(k, row.ID, "user_coupon", set, where, args))
}

// updateOne is UPDATE table SET set WHERE where as a compare-and-set write: it must change
// exactly one row.
func updateOne(k kind, settlementID int64, table string, set, where []string, args []any) write {
	return write{what: fmt.Sprintf("%s: settlement %d: %s", k, settlementID, table), cas: true,
		query: "UPDATE " + table + " SET " + strings.Join(set, ", ") + " WHERE " + strings.Join(where, " AND "), args: args}
}

// applyInMemory makes row what cas wrote.
func (s *Service) applyInMemory(row *ent.CouponSettlement, k kind, now time.Time) {
	row.Status, row.UpdatedAt = k.to(), now
	switch k {
	case confirm:
		row.PaidAt = &now
	case refund:
		row.RefundedAt = &now
		row.LiveCouponID, row.LiveSlot = nil, nil
	default:
		row.LiveCouponID, row.LiveSlot = nil, nil
	}
}

// answer is the outcome of k on a settlement found in another state than k.from(): a repeat
// (already in k.to()) answers it as it stands, anything else is refused with the state.
func (s *Service) answer(ctx context.Context, row *ent.CouponSettlement, k kind) (*Settlement, error) {
	if row.Status == k.to() && k != expire {
		return &Settlement{CouponSettlement: row}, nil
	}
	return nil, coupon.Errorf(coupon.CodeInvalidState, "cannot %s: the settlement is %s", k, row.Status)
}

// amountMismatch refuses a payment of another amount than the locked order's.
func amountMismatch(row *ent.CouponSettlement, amount decimal.Decimal) *coupon.Error {
	return &coupon.Error{Code: coupon.CodeAmountMismatch, Field: []string{"orderAmount"},
		Message: fmt.Sprintf("the order was locked for %s, not %s", row.OrderAmount.StringFixed(2), amount.String())}
}

func lockExpired(row *ent.CouponSettlement) *coupon.Error {
	return coupon.Errorf(coupon.CodeExpired, "the lock expired at %s; lock the coupon again", row.LockExpiresAt.Format(time.RFC3339))
}
