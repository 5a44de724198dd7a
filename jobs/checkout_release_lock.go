package jobs

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"coupond/coupon/checkout"

	"github.com/hibiken/asynq"
)

// TypeReleaseLock releases one settlement's lock once it has expired (checkout.Service.ExpireLock).
const TypeReleaseLock = "checkout:release-lock"

type releaseLockPayload struct {
	UserID   int64 `json:"userId,string"` // strings: asynqmon shows numbers above 2^53 rounded
	OrderID  int64 `json:"orderId,string"`
	CouponID int64 `json:"couponId,string"`
}

// NewReleaseLockTask returns the task releasing lock when it expires at at. Its id
// "release:<settlement>:<expiry ms>" is deterministic: a repeated lock schedules nothing twice,
// and a lock taken again after a release (a new expiry) gets a task of its own. It is processed
// from the first whole second at or after at: asynq keeps scheduled times in whole seconds, and a
// task run before the expiry finds nothing to do (checkout.ErrNotDue, retried).
func NewReleaseLockTask(lock checkout.LockRef, at time.Time) (*asynq.Task, []asynq.Option) {
	p := releaseLockPayload{UserID: lock.UserID, OrderID: lock.OrderID, CouponID: lock.CouponID}
	id := "release:" + strconv.FormatInt(lock.SettlementID, 10) + ":" + strconv.FormatInt(at.UnixMilli(), 10)
	due := at.Truncate(time.Second)
	if due.Before(at) {
		due = due.Add(time.Second)
	}
	return asynq.NewTask(TypeReleaseLock, payload(p)),
		[]asynq.Option{asynq.TaskID(id), asynq.ProcessAt(due), asynq.MaxRetry(10), asynq.Queue(QueueName(QueueDefault))}
}

// ReleaseLock implements checkout.Scheduler.
func (q *Queue) ReleaseLock(ctx context.Context, lock checkout.LockRef, at time.Time) error {
	t, opts := NewReleaseLockTask(lock, at)
	return q.enqueue(ctx, t, opts...)
}

func (h CheckoutHandlers) handleReleaseLock(ctx context.Context, t *asynq.Task) error {
	var p releaseLockPayload
	if err := decode(t, &p); err != nil {
		return err
	}
	if _, err := h.Checkout.ExpireLock(ctx, p.UserID, p.OrderID, p.CouponID); err != nil {
		return fmt.Errorf("release the lock of coupon %d on order %d: %w", p.CouponID, p.OrderID, err)
	}
	return nil
}
