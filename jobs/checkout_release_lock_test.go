package jobs

import (
	"testing"
	"time"

	"coupond/coupon/checkout"

	"github.com/hibiken/asynq"
)

// TestReleaseLockTask: the task id is the lock's (settlement and expiry), the same for a repeat
// and another for a new expiry; it is processed from the first whole second at or after the
// expiry (asynq schedules in seconds), never before.
func TestReleaseLockTask(t *testing.T) {
	lock := checkout.LockRef{UserID: 1, OrderID: 2, CouponID: 3, SettlementID: 4}
	at := time.UnixMilli(1_700_000_000_250)
	idOf := func(at time.Time) (string, time.Time) {
		_, opts := NewReleaseLockTask(lock, at)
		var id string
		var due time.Time
		for _, o := range opts {
			switch o.Type() {
			case asynq.TaskIDOpt:
				id = o.Value().(string)
			case asynq.ProcessAtOpt:
				due = o.Value().(time.Time)
			}
		}
		return id, due
	}
	id, due := idOf(at)
	if id != "release:4:1700000000250" || !due.Equal(time.Unix(1_700_000_001, 0)) {
		t.Fatalf("id %q, due %s", id, due)
	}
	if again, _ := idOf(at); again != id {
		t.Fatalf("a repeat got id %q", again)
	}
	if other, _ := idOf(at.Add(time.Minute)); other == id {
		t.Fatal("a new expiry got the same id")
	}
	if _, due := idOf(time.Unix(1_700_000_005, 0)); !due.Equal(time.Unix(1_700_000_005, 0)) {
		t.Fatalf("a whole-second expiry is due at %s", due)
	}
}
