package checkout

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/couponsettlement"
	"coupond/ent/coupontemplate"
	"coupond/ent/predicate"
	"coupond/ent/usercoupon"
	"coupond/idgen"
	"coupond/store"

	"entgo.io/ent/dialect/sql/sqlgraph"
	"github.com/shopspring/decimal"
)

// errLost means a compare-and-set found the row changed by a concurrent call; the caller reads
// again and answers from what it finds.
var errLost = errors.New("checkout: lost a race, read again")

// casAttempts bounds how often a call reads again after losing a race.
const casAttempts = 3

// platformSlot is the stacking slot of a PLATFORM-source coupon; a SHOP one's is "S<shop>".
const platformSlot = "P"

// slotOf is the stacking slot of a template's coupons on an order.
func slotOf(t *coupon.Template) string {
	if t.Source == coupontemplate.SourcePLATFORM {
		return platformSlot
	}
	return "S" + strconv.FormatInt(t.ShopNumber, 10)
}

// Lock holds a coupon for order o: a USER's own coupon (another user's is NOT_FOUND), or for a
// SERVICE any user's coupon (see holder). The coupon must be UNUSED, within its validity (EXPIRED, NOT_STARTED) and apply to the order
// (NOT_APPLICABLE, THRESHOLD_NOT_MET; see Discount), and the order must have its stacking slot
// free — one SHOP coupon per shop and one PLATFORM coupon, shop coupons before the platform one,
// whose discount is measured on what the shop coupons left (NOT_APPLICABLE otherwise). The
// discount is computed here, never taken from the client. One transaction moves the coupon
// UNUSED → LOCKED (checked CAS) and writes the LOCKED settlement (unique per order and coupon,
// one live settlement per coupon), expiring after the lock TTL; after the commit the lock's
// release is scheduled. A coupon locked by
// another order is ALREADY_LOCKED (also when three attempts lost their races).
// A repeat for the same (order, coupon) while the settlement is LOCKED or PAID answers it
// unchanged; after a release the same order may lock the coupon again (the settlement row is
// reused).
func (s *Service) Lock(ctx context.Context, actor coupon.Actor, couponID int64, o Order) (*Settlement, error) {
	if err := o.Validate(); err != nil {
		return nil, underField(err, "order")
	}
	where, args, err := named(actor, couponID)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		st, err := s.lockOnce(ctx, where, args, couponID, &o)
		if !errors.Is(err, errLost) {
			return st, err
		}
		if attempt == casAttempts {
			return nil, coupon.Errorf(coupon.CodeAlreadyLocked, "the coupon is being locked by another order")
		}
	}
}

// lockOnce is one attempt of Lock on the coupon that where and args name (named): one read (the
// coupon with its order's live settlements), then the transaction.
func (s *Service) lockOnce(ctx context.Context, where string, args []any, couponID int64, o *Order) (*Settlement, error) {
	uc, live, err := s.couponForOrder(ctx, where, args, o.ID)
	if err != nil {
		return nil, err
	}
	userID := uc.UserID
	if uc.Status != usercoupon.StatusUNUSED {
		return s.lockedAlready(ctx, uc, o.ID)
	}
	now := ms(s.now())
	switch {
	case !now.Before(uc.ValidEndTime):
		return nil, coupon.Errorf(coupon.CodeExpired, "the coupon expired at %s", uc.ValidEndTime.Format("2006-01-02 15:04:05Z07:00"))
	case now.Before(uc.ValidStartTime):
		return nil, coupon.Errorf(coupon.CodeNotStarted, "the coupon is valid from %s", uc.ValidStartTime.Format("2006-01-02 15:04:05Z07:00"))
	}
	t, err := s.templates.Get(ctx, uc.TemplateID)
	if err != nil {
		return nil, fmt.Errorf("lock: template %d: %w", uc.TemplateID, err)
	}
	slot := slotOf(t)
	taken, err := stacked(live, couponID, slot)
	if err != nil {
		return nil, err
	}
	d, derr := Discount(t, o, taken)
	if derr != nil {
		return nil, derr
	}
	member, err := s.markPending(ctx, userID, o.ID, couponID)
	if err != nil {
		return nil, err
	}
	expires := now.Add(s.lockTTL)
	payable := o.Amount.Sub(taken).Sub(d)
	row := &ent.CouponSettlement{ID: idgen.Next(), CreatedAt: now, UpdatedAt: now, UserID: userID, OrderID: o.ID, CouponID: couponID,
		TemplateID: uc.TemplateID, Status: couponsettlement.StatusLOCKED, OrderAmount: o.Amount, DiscountAmount: d, PayableAmount: payable,
		LockExpiresAt: &expires, LiveCouponID: &couponID, LiveSlot: &slot}
	lock := write{what: fmt.Sprintf("lock coupon %d", couponID), query: lockCouponSQL, cas: true,
		args: []any{now, usercoupon.StatusLOCKED, o.ID, d, userID, couponID, usercoupon.StatusUNUSED, now}}
	insert := write{what: fmt.Sprintf("lock coupon %d: settlement", couponID), query: insertSettlementSQL,
		args: []any{now, now, userID, o.ID, couponID, uc.TemplateID, row.Status, o.Amount, d, payable, expires, couponID, slot, row.ID}}
	err = s.transact(ctx, []write{lock, insert}, func(q querier) error { return stillStacked(ctx, q, row, taken) })
	if isUnique(err) { // the settlement met a unique key: again one statement at a time, to tell which
		err = s.inTx(ctx, s.lockTx, func(tx *ent.Tx) error {
			if err := execWrite(ctx, tx, lock); err != nil {
				return err
			}
			err := execWrite(ctx, tx, insert)
			if isUnique(err) && !slotTaken(err) { // released before: the same order locks again
				row, err = s.relock(ctx, tx, userID, o, couponID, d, payable, expires, slot, now)
			}
			switch {
			case slotTaken(err):
				return slotError(slot)
			case err != nil:
				return err
			}
			return stillStacked(ctx, tx, row, taken)
		})
	}
	if err != nil {
		s.undo(ctx, member, err)
		return nil, err
	}
	uc.Status, uc.OrderID, uc.DiscountAmount, uc.UpdatedAt = usercoupon.StatusLOCKED, &o.ID, &d, now
	s.finishAfterCommit(ctx, row, uc, member)
	return &Settlement{CouponSettlement: row, Coupon: uc}, nil
}

// relock turns the CANCELED settlement of (order, coupon) LOCKED again, in tx, with the new
// amounts and expiry; errLost when it is not CANCELED any more. Under the row's lock it first
// counts the previous lock's end in the locked counter (CountLock), which that release's own
// after-commit may not have done yet: once the row shows the new lock, nothing names the old one.
func (s *Service) relock(ctx context.Context, tx *ent.Tx, userID int64, o *Order, couponID int64, d, payable decimal.Decimal, expires time.Time, slot string, now time.Time) (*ent.CouponSettlement, error) {
	where := []predicate.CouponSettlement{couponsettlement.UserID(userID), couponsettlement.OrderID(o.ID), couponsettlement.CouponID(couponID)}
	prev, err := tx.CouponSettlement.Query().Where(append(where, couponsettlement.StatusEQ(couponsettlement.StatusCANCELED))...).ForUpdate().Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, errLost
	case err != nil:
		return nil, err
	}
	if err := CountLock(ctx, s.rdb, prev); err != nil {
		return nil, err
	}
	n, err := tx.CouponSettlement.Update().
		Where(append(where, couponsettlement.StatusEQ(couponsettlement.StatusCANCELED))...).
		SetStatus(couponsettlement.StatusLOCKED).SetOrderAmount(o.Amount).SetDiscountAmount(d).SetPayableAmount(payable).
		SetLockExpiresAt(expires).SetLiveCouponID(couponID).SetLiveSlot(slot).SetUpdatedAt(now).
		Save(ctx)
	switch {
	case err != nil:
		return nil, err
	case n == 0:
		return nil, errLost
	}
	return tx.CouponSettlement.Query().Where(where...).Only(ctx)
}

// lockedAlready answers a lock of a coupon that is not UNUSED: the settlement of this order when
// it is LOCKED or PAID (a repeat), else the refusal naming the coupon's state.
func (s *Service) lockedAlready(ctx context.Context, uc *ent.UserCoupon, orderID int64) (*Settlement, error) {
	row, err := s.settlementOf(ctx, uc.UserID, orderID, uc.ID)
	if err != nil && !errors.Is(err, coupon.ErrNotFound) {
		return nil, err
	}
	if row != nil && (row.Status == couponsettlement.StatusLOCKED || row.Status == couponsettlement.StatusPAID) {
		return &Settlement{CouponSettlement: row, Coupon: uc}, nil
	}
	switch uc.Status {
	case usercoupon.StatusLOCKED:
		return nil, coupon.Errorf(coupon.CodeAlreadyLocked, "the coupon is locked by another order")
	case usercoupon.StatusEXPIRED:
		return nil, coupon.Errorf(coupon.CodeExpired, "the coupon has expired")
	}
	return nil, coupon.Errorf(coupon.CodeInvalidState, "the coupon is %s", uc.Status)
}

// stillStacked re-reads the order's live settlements in tx with a locking read, after row joined
// them, and makes the lock errLost (read again) when they changed since stacked read them: a
// shop coupon joined before a platform one was measured without it, or the platform coupon came
// before a shop one. Under READ COMMITTED the read locks the order's committed live rows and
// waits for uncommitted ones of the same order: two locks racing on one order wait for each other
// (or deadlock, and MySQL fails one), locks of other orders never meet.
func stillStacked(ctx context.Context, tx querier, row *ent.CouponSettlement, taken decimal.Decimal) error {
	lives, err := queryLives(ctx, tx, row.UserID, row.OrderID)
	if err != nil {
		return fmt.Errorf("lock: the order's coupons: %w", err)
	}
	now := decimal.Zero
	for _, l := range lives {
		switch {
		case l.Coupon == row.CouponID:
		case l.Slot == platformSlot:
			return errLost // (row is a shop coupon: the unique key keeps one platform coupon)
		default:
			now = now.Add(l.Discount)
		}
	}
	if !now.Equal(taken) {
		return errLost
	}
	return nil
}

// live is one live settlement of an order: its coupon, stacking slot and discount.
type live struct {
	Coupon   int64
	Slot     string
	Discount decimal.Decimal
}

// couponForOrder reads the coupon that where and args name (named; NOT_FOUND when there is none)
// and the live settlements of its holder's order orderID, in one statement: a plain read, which
// the lock's transaction checks again (stillStacked).
func (s *Service) couponForOrder(ctx context.Context, where string, args []any, orderID int64) (*ent.UserCoupon, []live, error) {
	uc, ls, err := queryCouponWithLive(ctx, s.db, orderID, where, args...)
	switch {
	case ent.IsNotFound(err):
		return nil, nil, coupon.ErrNotFound
	case err != nil:
		return nil, nil, fmt.Errorf("lock: the coupon and its order: %w", err)
	}
	return uc, ls, nil
}

// stacked checks that slot is free among the order's live settlements and returns the discount
// they take (all of them shop coupons: what a platform coupon is measured after). A shop coupon
// cannot join an order that already carries the platform coupon (that one was measured on what
// the shop coupons left).
func stacked(lives []live, couponID int64, slot string) (taken decimal.Decimal, err error) {
	for _, l := range lives {
		switch {
		case l.Coupon == couponID: // a concurrent lock of this coupon for this order won
			return taken, errLost
		case l.Slot == slot:
			return taken, slotError(slot)
		case l.Slot == platformSlot:
			return taken, coupon.Errorf(coupon.CodeNotApplicable, "shop coupons apply before the platform coupon: release the platform coupon first")
		}
		taken = taken.Add(l.Discount)
	}
	return taken, nil
}

func slotError(slot string) *coupon.Error {
	if slot == platformSlot {
		return coupon.Errorf(coupon.CodeNotApplicable, "the order already carries a platform coupon")
	}
	return coupon.Errorf(coupon.CodeNotApplicable, "the order already carries a coupon of shop %s", slot[1:])
}

// lostRace turns a deadlock or lock-wait timeout, which MySQL resolves by failing one of the
// transactions racing on the same rows, into errLost: the loser reads again.
func lostRace(err error) error {
	if store.IsLockConflict(err) {
		return errLost
	}
	return err
}

// isUnique reports whether err is a unique key's refusal, from ent or from a plain statement.
func isUnique(err error) bool {
	return ent.IsConstraintError(err) || sqlgraph.IsUniqueConstraintError(err)
}

// slotTaken reports whether err is the unique key of an order's stacking slot.
func slotTaken(err error) bool {
	return isUnique(err) && strings.Contains(err.Error(), "live_slot")
}

// underField puts the field paths of a validation error under prefix.
func underField(err error, prefix string) error {
	errs := coupon.AsErrors(err)
	if errs == nil {
		return err
	}
	out := make(coupon.ValidationError, len(errs))
	for i, e := range errs {
		c := *e
		c.Field = append([]string{prefix}, e.Field...)
		out[i] = &c
	}
	return out
}
