// Package reminder tells users before a template's claim window opens: createReminder and
// cancelReminder (Create, Cancel), the user's list (Mine), and the delivery (SendBucket, Sweep).
//
// A reminder is one row per (user, template, channel), a unique key, so concurrent creates make
// one row. It is due at remindAt = the template's start − minutesBefore. Delivery is
// bucketed like expiry: one task per (template, minute of remindAt) with a deterministic id, so a
// million reminders of one flash sale are a handful of tasks, not a million. The task (or the
// sweep) holds the bucket's lease while it sends the bucket's PENDING reminders in pages through
// a Sender; each page's outcome is one UPDATE per outcome, never one long transaction. A failed
// delivery is retried with backoff (due_at), up to Config.Retries times, then FAILED with its
// reason; a delivered one is SENT and never sent again; the delivery id ("<id>-<version>") is the
// same on every retry, so a receiver dedupes. A terminated or ended template's reminders are
// SKIPPED, never sent; a CANCELED one is not PENDING, so no page selects it.
//
// Liveness does not hang on a task: the periodic Sweep sends every PENDING reminder overdue by
// more than SweepGrace (a lost, failed or archived task, a create that raced its bucket's task),
// a bounded number per run.
package reminder

import (
	"context"
	"time"

	"coupond/coupon"
	"coupond/defaults"
	"coupond/ent"
	"coupond/ent/couponreminder"

	"github.com/redis/go-redis/v9"
)

// Limits of minutesBefore: one minute to one week.
const (
	MinMinutesBefore = 1
	MaxMinutesBefore = 7 * 24 * 60
)

// Defaults of Config.
const (
	DefaultRetryBase  = 10 * time.Second
	DefaultRetryMax   = 10 * time.Minute
	DefaultSweepGrace = time.Minute
	DefaultSweepLimit = 10_000
)

// Templates gives templates by id (template.Cache's lookup chain); coupon.ErrNotFound for an
// unknown id.
type Templates interface {
	Get(ctx context.Context, id int64) (*coupon.Template, error)
}

// Scheduler queues the task that sends one reminder bucket; jobs.Queue implements it. Asking
// twice for one bucket is harmless (the task id is deterministic).
type Scheduler interface {
	// RemindBucket asks for the template's reminders due within the minute starting at minute to
	// be sent at at (their remindAt).
	RemindBucket(ctx context.Context, templateID int64, minute, at time.Time) error
}

// Config tunes the service; zero fields take the defaults.
type Config struct {
	// Retries is how many times a failed delivery is tried again before the reminder is FAILED.
	Retries int
	// RetryBase is the wait before the first retry; each later one doubles it, up to RetryMax.
	RetryBase, RetryMax time.Duration
	// SweepGrace is how long past due a PENDING reminder must be before the sweep takes it (the
	// bucket's task comes first).
	SweepGrace time.Duration
	// SweepLimit bounds the reminders one Sweep run sends.
	SweepLimit int
	// Page is how many reminders one page (one SELECT, one UPDATE per outcome) holds; default 500.
	Page int
	// Parallel is how many deliveries of a page run at once; default 16.
	Parallel int
	// UserShards is how many shards the user tables are split into (COUPON_MYSQL_USER_SHARDS):
	// a page's outcomes are written with one UPDATE per user shard; default 1.
	UserShards int
}

// Service creates, cancels, lists and delivers reminders.
type Service struct {
	db        *ent.Client
	rdb       redis.UniversalClient
	templates Templates
	sched     Scheduler
	sender    Sender
	cfg       Config
	now       func() time.Time
}

// New returns the service over the database, the data Redis (bucket leases), the template
// lookup, the bucket scheduler and the sender deliveries go through.
func New(db *ent.Client, rdb redis.UniversalClient, templates Templates, sched Scheduler, sender Sender, cfg Config) *Service {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.Retries, defaults.ReminderRetries)
	def(&cfg.SweepLimit, DefaultSweepLimit)
	def(&cfg.Page, 500)
	def(&cfg.Parallel, 16)
	defDur(&cfg.RetryBase, DefaultRetryBase)
	defDur(&cfg.RetryMax, DefaultRetryMax)
	defDur(&cfg.SweepGrace, DefaultSweepGrace)
	return &Service{db: db, rdb: rdb, templates: templates, sched: sched, sender: sender, cfg: cfg, now: time.Now}
}

// Reminder is one user's reminder of one template on one channel.
type Reminder struct {
	ID            int64
	UserID        int64
	TemplateID    int64
	Channel       couponreminder.Channel
	MinutesBefore int
	RemindAt      time.Time
	Status        couponreminder.Status
	FailureReason *string
	SentAt        *time.Time
}

func fromRow(r *ent.CouponReminder) *Reminder {
	return &Reminder{
		ID: r.ID, UserID: r.UserID, TemplateID: r.TemplateID, Channel: r.Channel, MinutesBefore: r.MinutesBefore,
		RemindAt: r.RemindAt.UTC(), Status: r.Status, FailureReason: r.FailureReason, SentAt: r.SentAt,
	}
}

// BucketMinute is the bucket of a reminder due at remindAt: the start of its minute, in UTC.
func BucketMinute(remindAt time.Time) time.Time { return remindAt.UTC().Truncate(time.Minute) }

// DeliveryID names one delivery of a reminder: the same on every retry, a new one when the
// reminder is re-armed.
func DeliveryID(id int64, version int) string {
	return formatInt(id) + "-" + formatInt(int64(version))
}
