// Package jobs holds coupond's asynq task types, one file per type named like it
// (outbox_persist.go ↔ "outbox:persist": its Type constant, payload, constructor, enqueue method
// and handler), the Queue that enqueues them for the domain, the queues and their weights
// (queues.go), every periodic task (periodic.go), and how failures are told from domain refusals
// (failures.go). Handlers are grouped in one struct per capability.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"coupond/coupon/archive"
	"coupond/coupon/checkout"
	"coupond/coupon/claim"
	"coupond/coupon/distribution"
	"coupond/coupon/expiry"
	"coupond/coupon/reconcile"
	"coupond/coupon/reminder"
	"coupond/coupon/stats"

	"github.com/hibiken/asynq"
)

// ClaimHandlers run the claim path's tasks.
type ClaimHandlers struct {
	Persister *claim.Persister
	Queue     *Queue // the drain queues a persister per non-empty outbox
}

// ExpiryHandlers run the expiry tasks.
type ExpiryHandlers struct {
	Expirer *expiry.Expirer
}

// DistributionHandlers run the distribution tasks.
type DistributionHandlers struct {
	Service *distribution.Service
}

// CheckoutHandlers run the checkout's tasks.
type CheckoutHandlers struct {
	Checkout *checkout.Service
}

// ArchiveHandlers run the archive's task.
type ArchiveHandlers struct {
	Archiver *archive.Archiver
}

// ReminderHandlers run the reminders' tasks.
type ReminderHandlers struct {
	Reminders *reminder.Service
}

// StatsHandlers run the stats' roll-up and rebuild.
type StatsHandlers struct {
	Stats *stats.Service
}

// ReconcileHandlers run the reconciliation.
type ReconcileHandlers struct {
	Reconciler *reconcile.Reconciler
}

// Handlers are every capability's task handlers.
type Handlers struct {
	Claim        ClaimHandlers
	Expiry       ExpiryHandlers
	Distribution DistributionHandlers
	Checkout     CheckoutHandlers
	Archive      ArchiveHandlers
	Reminder     ReminderHandlers
	Stats        StatsHandlers
	Reconcile    ReconcileHandlers
}

// NewMux returns the worker's mux with every task type's handler.
func NewMux(h Handlers) *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.HandleFunc(TypePersistOutbox, h.Claim.handlePersistOutbox)
	mux.HandleFunc(TypeDrainOutboxes, h.Claim.handleDrainOutboxes)
	mux.HandleFunc(TypeExpireBucket, h.Expiry.handleExpireBucket)
	mux.HandleFunc(TypeExpireSweep, h.Expiry.handleExpireSweep)
	mux.HandleFunc(TypeRunDistribution, h.Distribution.handleRunDistribution)
	mux.HandleFunc(TypeReapDistributions, h.Distribution.handleReapDistributions)
	mux.HandleFunc(TypeRetainDistributionFiles, h.Distribution.handleRetainDistributionFiles)
	mux.HandleFunc(TypeReleaseLock, h.Checkout.handleReleaseLock)
	mux.HandleFunc(TypeCheckoutSweep, h.Checkout.handleCheckoutSweep)
	mux.HandleFunc(TypeArchive, h.Archive.handleArchive)
	mux.HandleFunc(TypeRemindBucket, h.Reminder.handleRemindBucket)
	mux.HandleFunc(TypeReminderSweep, h.Reminder.handleReminderSweep)
	mux.HandleFunc(TypeRollUpStats, h.Stats.handleRollUpStats)
	mux.HandleFunc(TypeRebuildStats, h.Stats.handleRebuildStats)
	mux.HandleFunc(TypeReconcile, h.Reconcile.handleReconcile)
	return mux
}

// Queue enqueues tasks; it implements each capability's scheduling interface.
type Queue struct{ client *asynq.Client }

// NewQueue returns a Queue over an asynq client.
func NewQueue(c *asynq.Client) *Queue { return &Queue{client: c} }

var (
	_ claim.Scheduler        = (*Queue)(nil)
	_ expiry.Scheduler       = (*Queue)(nil)
	_ distribution.Scheduler = (*Queue)(nil)
	_ checkout.Scheduler     = (*Queue)(nil)
	_ reminder.Scheduler     = (*Queue)(nil)
)

// enqueue enqueues t; a task with the same id already queued or running counts as success.
func (q *Queue) enqueue(ctx context.Context, t *asynq.Task, opts ...asynq.Option) error {
	_, err := q.client.EnqueueContext(ctx, t, opts...)
	if errors.Is(err, asynq.ErrTaskIDConflict) || errors.Is(err, asynq.ErrDuplicateTask) {
		return nil
	}
	return err
}

// payload encodes v as a task payload.
func payload(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("jobs: payload %T: %v", v, err)) // plain structs of numbers: cannot fail
	}
	return b
}

// decode reads a task payload; a malformed one is not retried.
func decode(t *asynq.Task, v any) error {
	if err := json.Unmarshal(t.Payload(), v); err != nil {
		return fmt.Errorf("%s: bad payload: %v: %w", t.Type(), err, asynq.SkipRetry)
	}
	return nil
}
