// Package defaults holds the default of every setting that a package also falls back to when its
// Config leaves the field zero (tests, tools). The settings table (config.go in package main,
// rendered by `coupond help` and in the README) shows these values, and the packages read them:
// each default is written here once. It imports nothing of coupond, so any package may read it.
package defaults

import "time"

// Defaults of settings, by the variable that overrides each.
const (
	RedeemTemplateRate     = 50_000.0               // COUPON_REDEEM_TEMPLATE_RATE: claims/s per template and instance
	PersistBatch           = 2000                   // COUPON_PERSIST_BATCH: claims per persister transaction
	PersistLinger          = 100 * time.Millisecond // COUPON_PERSIST_LINGER
	LockTTL                = 15 * time.Minute       // COUPON_LOCK_TTL
	CheckoutSweepEvery     = time.Minute            // COUPON_CHECKOUT_SWEEP_EVERY
	UploadMaxBytes         = 64 << 20               // COUPON_UPLOAD_MAX_BYTES
	DistributionBatch      = 5000                   // COUPON_DISTRIBUTION_BATCH
	DistributionMaxRows    = 1<<20 - 1              // COUPON_DISTRIBUTION_MAX_ROWS: an .xlsx sheet's rows less a header
	ArchiveAfter           = 2160 * time.Hour       // COUPON_ARCHIVE_AFTER
	ArchiveBatch           = 500                    // COUPON_ARCHIVE_BATCH
	ReminderWebhookTimeout = 5 * time.Second        // COUPON_REMINDER_WEBHOOK_TIMEOUT
	ReminderRetries        = 5                      // COUPON_REMINDER_RETRIES
	ReminderSweepEvery     = time.Minute            // COUPON_REMINDER_SWEEP_EVERY
	StatsMaxDays           = 366                    // COUPON_STATS_MAX_DAYS
	StatsRollUpEvery       = time.Minute            // COUPON_STATS_ROLLUP_EVERY
	ReconcileTemplates     = 100                    // COUPON_RECONCILE_TEMPLATES
	ReconcileUsers         = 200                    // COUPON_RECONCILE_USERS
	RedisWaitTimeout       = 500 * time.Millisecond // COUPON_REDIS_WAIT_TIMEOUT: WAIT's timeout after claim scripts
)
