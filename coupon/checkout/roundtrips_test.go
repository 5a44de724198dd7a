package checkout_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"coupond/ent/couponsettlement"
	"coupond/jobs"
	"coupond/services"
	"coupond/store"
	"coupond/testutil"
	"coupond/testutil/stack"

	"github.com/go-sql-driver/mysql"
	"github.com/hibiken/asynq"
)

// The most MySQL round trips (commands sent: each one waits for its answer) one lockCoupon (by the
// user) and one confirmCouponPayment (by the order system) may cost. The raw compare-and-set
// transactions of bench/checkout take 4 each (START TRANSACTION, 2 statements, COMMIT). The lock
// has three more: its read of the coupon with the order's live settlements, the READ COMMITTED
// level set before its transaction, and the re-read of the order in it (stillStacked). The
// confirmation reads holder and settlement in one statement, moves each row with its own checked
// UPDATE (one multi-table UPDATE saved a round trip, but Vitess refuses it) and adds the archive
// queue's entry. (Before issue 20: 8 and 6, without the queue's entry.)
const (
	lockRoundTrips    = 7
	confirmRoundTrips = 6
)

// wire records the commands the client sends over the connections dialed by "countedtcp".
var wire struct {
	sync.Mutex
	on       bool
	commands []string
}

func init() {
	mysql.RegisterDialContext("countedtcp", func(ctx context.Context, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		return countedConn{c}, nil
	})
}

// countedConn records each packet the client writes: one packet is one command (go-sql-driver
// writes a packet in one Write; the statements here are far below its 16 MiB split).
type countedConn struct{ net.Conn }

func (c countedConn) Write(b []byte) (int, error) {
	wire.Lock()
	if wire.on && len(b) > 4 {
		wire.commands = append(wire.commands, string(b[5:min(len(b), 140)]))
	}
	wire.Unlock()
	return c.Conn.Write(b)
}

// counted runs fn and returns the commands it sent.
func counted(fn func()) []string {
	wire.Lock()
	wire.on, wire.commands = true, nil
	wire.Unlock()
	fn()
	wire.Lock()
	defer wire.Unlock()
	wire.on = false
	return wire.commands
}

// TestLockAndConfirmRoundTrips counts, on the wire to the real MariaDB, the commands one lock and
// one confirmation send, and fails when either costs more than its bound (a read or statement
// added back to the hot path).
func TestLockAndConfirmRoundTrips(t *testing.T) {
	_, _, dsn := testutil.MySQL(t, pkg+"_roundtrips")
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Net = "countedtcp"
	db, _, err := store.OpenMySQL(cfg.FormatDSN(), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	queue := asynq.NewClient(testutil.QueueOpt())
	t.Cleanup(func() { queue.Close() })
	svc := services.New(db, testutil.Redis(t, pkg), jobs.NewQueue(queue), services.Config{Files: stack.TempFiles(t)})
	st := &stack.Stack{Services: svc, Ctx: context.Background(), DB: db, Redis: testutil.Redis(t, pkg)}
	tpl := tplWith(t, st, nil)
	coupons := give(t, st, tpl, 31, 2, time.Now().Add(time.Hour))

	pair := func(orderID int64, couponID int64) (lock, confirm []string) {
		lock = counted(func() {
			if s, err := svc.Checkout.Lock(st.Ctx, user(31), couponID, order(orderID, "20.00")); err != nil || s.Status != couponsettlement.StatusLOCKED {
				t.Fatalf("lock: %+v, %v", s, err)
			}
		})
		confirm = counted(func() {
			if s, err := svc.Checkout.Confirm(st.Ctx, orders, orderID, couponID, dec("20.00")); err != nil || s.Status != couponsettlement.StatusPAID {
				t.Fatalf("confirm: %+v, %v", s, err)
			}
		})
		return lock, confirm
	}
	pair(1, coupons[0].ID) // warm: connections open, the template cached
	lock, confirm := pair(2, coupons[1].ID)
	t.Logf("lock: %d round trips:\n  %s", len(lock), strings.Join(lock, "\n  "))
	t.Logf("confirm: %d round trips:\n  %s", len(confirm), strings.Join(confirm, "\n  "))
	if len(lock) > lockRoundTrips {
		t.Errorf("one lock took %d MySQL round trips, want at most %d", len(lock), lockRoundTrips)
	}
	if len(confirm) > confirmRoundTrips {
		t.Errorf("one confirmation took %d MySQL round trips, want at most %d", len(confirm), confirmRoundTrips)
	}
	checkBooks(t, st, coupons[1], false)
}
