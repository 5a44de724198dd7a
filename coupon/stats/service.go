// Package stats is the admin's numbers: templateStats and shopStats, served from counters.
//
// Where the numbers live, and which is authoritative:
//
//   - Realtime counters in Redis: per template and stats day (keys.DailyStats, days in
//     keys.StatsZone, COUPON_STATS_TIMEZONE) moved after their commits by the code that moves the
//     coupons (issue.CountIssued, the distribution's after-commit script, the expirer, the checkout's
//     count_once), each event counted once on the day of its database timestamp, a refund on its
//     payment's day (stats are net: the refund moves the payment from used to refunded there);
//     and the locks held now (keys.StatsLive, checkout.CountLock).
//   - template_daily_stats rows in MySQL, written by the roll-up (RollUp, every minute): for an
//     open day (today, and a closed day for SealAfter after its end) it copies the Redis counters
//     as absolute values (rerun-safe); once a day has been closed for SealAfter it seals it:
//     recomputes it from MySQL (the template's issued and expired ledgers, coupon/ledger, and
//     coupon_settlement; Rebuild) and marks the row sealed. A refund of a payment of a sealed day touches that day again, and the
//     next roll-up seals it again (RollUp: up to MaxDays back).
//
// A sealed day's row is authoritative (it is MySQL's own count; Redis is not read for it). For an open day the Redis hash is authoritative while it exists (the row is its copy of up
// to a minute ago), else the row. The query's cost is one indexed row per (template, day) and one
// Redis hash per (template, open day): it grows with the days asked for, never with the coupons.
// shopStats has MySQL sum the rows by day and by template (shopSums).
//
// After a Redis flush or a restart that lost data (keys.StatsSentinel missing), the next roll-up
// recounts the locks held now from MySQL (exact, through the per-lock markers) and rebuilds every
// open day from MySQL into both the row and the Redis hash, then sets the sentinel. Events that
// commit during those few milliseconds of rebuild may be counted twice or not at all in the open
// day's realtime figure; the day's seal recomputes it exactly. A crash between a commit and its
// count (the one loss a counter can suffer) is healed the same way.
package stats

import (
	"cmp"
	"time"

	"coupond/coupon/template"
	"coupond/defaults"
	"coupond/ent"

	"github.com/redis/go-redis/v9"
)

// Config tunes the stats; zero fields take the defaults.
type Config struct {
	// MaxDays bounds the days one query may ask for (default defaults.StatsMaxDays).
	MaxDays int
	// SealAfter is how long after its end a day is recomputed from MySQL and sealed (default 1h:
	// claims persisted late and replays land before it).
	SealAfter time.Duration
}

// Service answers stats queries and runs the roll-up and rebuild jobs.
type Service struct {
	db        *ent.Client
	rdb       redis.UniversalClient
	templates *template.Admin
	cfg       Config
	now       func() time.Time
}

// New returns the stats service.
func New(db *ent.Client, rdb redis.UniversalClient, templates *template.Admin, cfg Config) *Service {
	cfg.MaxDays = cmp.Or(cfg.MaxDays, defaults.StatsMaxDays)
	cfg.SealAfter = cmp.Or(cfg.SealAfter, time.Hour)
	return &Service{db: db, rdb: rdb, templates: templates, cfg: cfg, now: time.Now}
}
