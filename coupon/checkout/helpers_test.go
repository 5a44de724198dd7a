package checkout_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/checkout"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/couponsettlement"
	"coupond/ent/usercoupon"
	"coupond/services"
	"coupond/testutil/stack"

	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"
)

const pkg = "checkout"

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func user(id int64) coupon.Actor { return coupon.Actor{UserID: id, Role: coupon.RoleUser} }

// orders is the order system: it confirms payments and refunds.
var orders = coupon.Actor{Role: coupon.RoleService, Service: "orders"}

// order is an order of stack.Merchant's shop of the given amount.
func order(id int64, amount string) checkout.Order {
	return checkout.Order{ID: id, Shop: stack.Merchant.Shop, Amount: dec(amount)}
}

// give issues n coupons of tpl to userID, valid until end, with their after-commit work, as the
// claim path does.
func give(t *testing.T, st *stack.Stack, tpl *coupon.Template, userID int64, n int, end time.Time) []*ent.UserCoupon {
	t.Helper()
	ctx := context.Background()
	tx, err := st.DB.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	var out []*ent.UserCoupon
	for i := range n {
		start, err := tx.UserCoupon.Query().Where(usercoupon.UserID(userID), usercoupon.TemplateID(tpl.ID)).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		uc, err := issue.Create(tx, issue.Coupon{UserID: userID, TemplateID: tpl.ID, RedemptionID: fmt.Sprintf("t-%d-%d-%d-%d", tpl.ID, userID, i, now.UnixNano()),
			ReceiveCount: start + 1, Source: usercoupon.SourceDISTRIBUTION, At: now.Add(-time.Second), End: end.UTC().Truncate(time.Millisecond)}).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, uc)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := st.Issuer.AfterCommit(ctx, tpl.ID, out, len(out)); err != nil {
		t.Fatal(err)
	}
	return out
}

// tplWith creates a template of stack.Merchant's shop changed by mutate.
func tplWith(t *testing.T, st *stack.Stack, mutate func(*template.CreateInput)) *coupon.Template {
	return st.Template(t, 1000, 1000, mutate)
}

func code(err error) coupon.Code {
	if errs := coupon.AsErrors(err); len(errs) > 0 {
		return errs[0].Code
	}
	if err != nil {
		return "INTERNAL:" + coupon.Code(err.Error())
	}
	return ""
}

// checkBooks asserts that the coupon and its settlements agree: LOCKED ⇔ exactly one LOCKED
// settlement of its order; USED ⇔ one PAID settlement of its order (or a REFUNDED one when the
// template forfeits); UNUSED or EXPIRED ⇔ no live settlement; live keys set exactly on live
// settlements.
func checkBooks(t *testing.T, st *stack.Stack, uc *ent.UserCoupon, forfeit bool) *ent.UserCoupon {
	t.Helper()
	ctx := context.Background()
	cur, err := st.DB.UserCoupon.Query().Where(usercoupon.UserID(uc.UserID), usercoupon.ID(uc.ID)).Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.DB.CouponSettlement.Query().Where(couponsettlement.UserID(uc.UserID), couponsettlement.CouponID(uc.ID)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var live []*ent.CouponSettlement
	for _, r := range rows {
		isLive := r.Status == couponsettlement.StatusLOCKED || r.Status == couponsettlement.StatusPAID
		if isLive != (r.LiveCouponID != nil) || isLive != (r.LiveSlot != nil) {
			t.Errorf("coupon %d: settlement %d is %s with live keys %v %v", uc.ID, r.ID, r.Status, r.LiveCouponID, r.LiveSlot)
		}
		if isLive {
			live = append(live, r)
		}
	}
	if len(live) > 1 {
		t.Errorf("coupon %d: %d live settlements", uc.ID, len(live))
	}
	switch cur.Status {
	case usercoupon.StatusLOCKED:
		if len(live) != 1 || live[0].Status != couponsettlement.StatusLOCKED || cur.OrderID == nil || *cur.OrderID != live[0].OrderID {
			t.Errorf("coupon %d LOCKED for order %v, live settlements %v", uc.ID, cur.OrderID, live)
		}
	case usercoupon.StatusUSED:
		paid := len(live) == 1 && live[0].Status == couponsettlement.StatusPAID && cur.OrderID != nil && *cur.OrderID == live[0].OrderID
		forfeited := false
		if forfeit && len(live) == 0 && cur.OrderID != nil {
			for _, r := range rows {
				forfeited = forfeited || (r.Status == couponsettlement.StatusREFUNDED && r.OrderID == *cur.OrderID)
			}
		}
		if !paid && !forfeited {
			t.Errorf("coupon %d USED for order %v, settlements %v", uc.ID, cur.OrderID, rows)
		}
		if cur.UsedAt == nil {
			t.Errorf("coupon %d USED without usedAt", uc.ID)
		}
	default:
		if len(live) != 0 || cur.OrderID != nil {
			t.Errorf("coupon %d %s with order %v and live settlements %v", uc.ID, cur.Status, cur.OrderID, live)
		}
	}
	return cur
}

func isCode(err error, c coupon.Code) bool {
	var e *coupon.Error
	return errors.As(err, &e) && e.Code == c
}

// servicesConfig is a stack configuration with the given lock TTL.
func servicesConfig(lockTTL time.Duration) services.Config {
	return services.Config{Checkout: checkout.Config{LockTTL: lockTTL}}
}

// pendingCleared waits until the pending set is empty: a call's own entry is dropped after the
// call (clearPending), within clearDelay on a quiet machine; it fails after 5 s.
func pendingCleared(t *testing.T, rdb redis.Cmdable) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if n, err := rdb.ZCard(context.Background(), keys.CheckoutPending()).Result(); err == nil && n == 0 {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("pending entries left: %d, %v", n, err)
		}
	}
}

// noOpenTransactions fails when a connection to the test's database holds a transaction open
// once every call has returned: a transaction that failed (a lost compare-and-set, a unique key,
// a deadlock) must be rolled back, or its connection closed, before the connection goes back to
// the pool.
func noOpenTransactions(t *testing.T, st *stack.Stack) {
	t.Helper()
	if n := openTransactions(t, st); n != 0 {
		t.Fatalf("%d connections of the pools hold a transaction open after the calls", n)
	}
}

// openTransactions counts the connections to the test's database, other than the one asking,
// that hold an InnoDB transaction.
func openTransactions(t *testing.T, st *stack.Stack) int {
	t.Helper()
	var n int
	err := st.SQL.QueryRowContext(st.Ctx, "SELECT COUNT(*) FROM information_schema.innodb_trx t "+
		"JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id WHERE p.db = DATABASE() AND p.id <> CONNECTION_ID()").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
