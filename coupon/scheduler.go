package coupon

import (
	"context"
	"time"
)

// Scheduler is how the domain asks for background work; package jobs implements it over asynq.
// Each request is deduplicated by a deterministic task id, so asking twice is harmless.
type Scheduler interface {
	// PersistOutbox asks for the template's outbox to be drained into MySQL soon.
	PersistOutbox(ctx context.Context, templateID int64) error
	// ExpireBucket asks for the template's coupons ending within the minute that starts at
	// minute to be expired once that minute is over.
	ExpireBucket(ctx context.Context, templateID int64, minute time.Time) error
}
