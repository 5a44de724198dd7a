// Package keys builds every Redis key and set/stream member format coupond uses; nothing else
// does, so no two builders of one key can disagree.
//
// The hash-tag rule: every key of one template carries the tag {t<id>}, so the keys one script
// touches live in one Redis Cluster slot. Keys not tied to one template (the Bloom filter, the
// outbox index, the checkout journal) carry no tag and are never passed to a script together with a
// template's keys.
//
// Every key starts with the namespace (SetNamespace; empty by default), so several deployments or
// test packages can share one Redis server without seeing each other's keys.
package keys

import (
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

var (
	namespace atomic.Pointer[string]
	statsZone atomic.Pointer[time.Location]
)

// SetStatsZone makes StatsDay name days of loc (UTC by default). Call it once, at start-up,
// before any counter is written: every stats day key and every stats query follows this zone.
func SetStatsZone(loc *time.Location) { statsZone.Store(loc) }

// StatsZone is the time zone of stats days (UTC unless SetStatsZone was called).
func StatsZone() *time.Location {
	if l := statsZone.Load(); l != nil {
		return l
	}
	return time.UTC
}

// StatsDay is the stats day (YYYY-MM-DD in StatsZone) t falls in: the day part of every
// DailyStats key. Every writer of a daily counter names its day with it.
func StatsDay(t time.Time) string { return t.In(StatsZone()).Format(time.DateOnly) }

// SetNamespace makes every key built afterwards start with ns (e.g. "test_claim:"). Call it once,
// before any key is built: keys built earlier keep the old namespace.
func SetNamespace(ns string) { namespace.Store(&ns) }

// Namespace is the current key prefix ("" by default).
func Namespace() string {
	if p := namespace.Load(); p != nil {
		return *p
	}
	return ""
}

// Tag is the hash tag of a template's keys: "{t<id>}".
func Tag(templateID int64) string { return "{t" + strconv.FormatInt(templateID, 10) + "}" }

// single is the one stock shard of a template with one: its keys are the template's own.
func single(templateID int64) Shard { return StockShard(templateID, 0, 1) }

func tagged(templateID int64, suffix string) string {
	return Namespace() + Tag(templateID) + suffix
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// Template is the template cache hash.
func Template(templateID int64) string { return single(templateID).Stock() }

// TemplateNull marks an id known not to exist (null-value cache).
func TemplateNull(templateID int64) string { return single(templateID).Null() }

// TemplateLock is the cache rebuild lock.
func TemplateLock(templateID int64) string { return single(templateID).Lock() }

// ClaimCounter is a user's claim hash for one template: field "n" counts the coupons the user
// holds against limitPerPerson (given back when a claim fails), field "seq" hands out
// receive_count values and never goes down. Expires at the template's end.
func ClaimCounter(templateID, userID int64) string { return single(templateID).ClaimCounter(userID) }

// Outbox is the template's outbox stream of accepted claims, drained by the persister.
func Outbox(templateID int64) string { return single(templateID).Outbox() }

// PersistLease is held by the one persister draining the template's outbox at a time.
func PersistLease(templateID int64) string { return single(templateID).PersistLease() }

// Request remembers the answer to a user's claim with one client requestId.
func Request(templateID, userID int64, requestID string) string {
	return single(templateID).Request(userID, requestID)
}

// Redemption maps a redemption id to its user while the claim may still be pending.
func Redemption(templateID int64, redemptionID string) string {
	return single(templateID).Redemption(redemptionID)
}

// UserRate counts a user's claim attempts on one template in the current rate window.
func UserRate(templateID, userID int64) string { return single(templateID).UserRate(userID) }

// ExpiryBucket is the set of coupons of one template ending within one minute (members
// BucketMember), drained by that bucket's expiry task. minuteUnix is the minute's start.
func ExpiryBucket(templateID, minuteUnix int64) string {
	return tagged(templateID, ":exp:"+id(minuteUnix))
}

// DailyStats is the template's realtime counters of one stats day (StatsDay): the Stat* fields
// below. Each event is counted on the day of the timestamp the database gives it (a coupon's
// created_at, a payment's paid_at, an expiry's updated_at; a refund on its payment's paid_at).
func DailyStats(templateID int64, day string) string { return tagged(templateID, ":stats:"+day) }

// StatsLive is the template's current counters that are not per day: field StatLocked, the
// coupons LOCKED now (lock events counted once each, minus their ends counted once each).
func StatsLive(templateID int64) string { return tagged(templateID, ":stats:live") }

// StatsTouched is the set of template ids whose DailyStats of day may have moved; the roll-up
// reads it instead of scanning the keyspace. Writers add the template before they count.
func StatsTouched(day string) string { return Namespace() + "coupond:stats:touched:" + day }

// StatsSentinel is set by every roll-up and never expires: when it is missing while the database
// holds open days, Redis lost its data (a flush or a restart without AOF) and the roll-up rebuilds.
func StatsSentinel() string { return Namespace() + "coupond:stats:sentinel" }

// Fields of DailyStats, each counting events of its day: coupons issued by claims and by
// distribution; payments made with a coupon that stand and their discount in cents, payments made
// that day and refunded since and their discount in cents (a refund moves its payment from the
// first pair to the second on the payment's day: stats are net); coupons expired. StatLocked is
// StatsLive's field.
const (
	StatIssuedClaim           = "issued_claim"
	StatIssuedDistribution    = "issued_distribution"
	StatLocked                = "locked"
	StatUsed                  = "used"
	StatDiscountCents         = "discount_cents"
	StatRefunded              = "refunded"
	StatRefundedDiscountCents = "refunded_discount_cents"
	StatExpired               = "expired"
)

// Counted marks one event already added to the template's DailyStats (event names the
// settlement and its transition, or the issue batch), so a replayed count adds nothing. The
// marker lives CountedTTL.
func Counted(templateID int64, event string) string { return tagged(templateID, ":counted:"+event) }

// CountedTTL is how long a Counted marker lives: far longer than any replay of its event comes (a
// batch's in-process retry, the checkout sweep's replay of a journal entry).
const CountedTTL = 8 * 24 * time.Hour

// Bloom is the Bloom filter bitmap of existing template ids, shared by all instances.
func Bloom() string { return Namespace() + "coupond:bloom:templates" }

// OutboxIndex is the set of template ids whose outbox may hold claims; the periodic drain looks
// there instead of scanning the keyspace.
func OutboxIndex() string { return Namespace() + "coupond:outboxes" }

// CheckoutPending is the checkout's set of transitions whose after-commit work may not be done
// (members PendingMember, score the time in ms); the checkout sweep replays old entries.
func CheckoutPending() string { return Namespace() + "coupond:checkout:pending" }

// PendingMember is a CheckoutPending member: "<user>:<order>:<coupon>:<nonce>" (the nonce keeps
// two calls on one settlement apart).
func PendingMember(userID, orderID, couponID int64, nonce string) string {
	return id(userID) + ":" + id(orderID) + ":" + id(couponID) + ":" + nonce
}

// ParsePendingMember reads a PendingMember; ok is false unless the three numbers are positive.
func ParsePendingMember(m string) (userID, orderID, couponID int64, ok bool) {
	parts := strings.Split(m, ":")
	if len(parts) != 4 {
		return 0, 0, 0, false
	}
	var n [3]int64
	for i := range n {
		v, err := strconv.ParseInt(parts[i], 10, 64)
		if err != nil || v <= 0 {
			return 0, 0, 0, false
		}
		n[i] = v
	}
	return n[0], n[1], n[2], true
}

// BucketMember is an expiry bucket member: "<user>:<coupon>".
func BucketMember(userID, couponID int64) string { return id(userID) + ":" + id(couponID) }

// ParseBucketMember reads a BucketMember; ok is false unless both numbers are positive.
func ParseBucketMember(m string) (userID, couponID int64, ok bool) { return parsePair(m, ":") }

func parsePair(m, sep string) (int64, int64, bool) {
	a, b, found := strings.Cut(m, sep)
	if !found {
		return 0, 0, false
	}
	x, err1 := strconv.ParseInt(a, 10, 64)
	y, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || x <= 0 || y <= 0 {
		return 0, 0, false
	}
	return x, y, true
}

// DistributionLease is held by the one worker running a distribution task.
func DistributionLease(taskID int64) string { return Namespace() + "coupond:dist:lease:" + id(taskID) }

// DistributionProgress is the pub/sub channel a distribution task's progress is announced on.
func DistributionProgress(taskID int64) string {
	return Namespace() + "coupond:dist:progress:" + id(taskID)
}

// ArchiveLease is held by the one archiver running at a time.
func ArchiveLease() string { return Namespace() + "coupond:archive:lease" }

// ReminderLease is the lease of one reminder bucket (the template's reminders due within the
// minute starting at minuteUnix): its task and the reminder sweep take it, so one of them sends
// the bucket at a time.
func ReminderLease(templateID, minuteUnix int64) string {
	return tagged(templateID, ":remind:"+id(minuteUnix))
}

// ClaimCounterPattern is the SCAN pattern of every template's claim hashes (ClaimCounter).
func ClaimCounterPattern() string { return Namespace() + "{t*}:u:*" }

// ParseClaimCounter reads a ClaimCounter key, of the template's own tag or of a stock shard's
// (ShardTag); ok is false unless both numbers are positive.
func ParseClaimCounter(key string) (templateID, userID int64, ok bool) {
	rest, found := strings.CutPrefix(key, Namespace()+"{t")
	if !found {
		return 0, 0, false
	}
	tag, user, found := strings.Cut(rest, "}:u:")
	if !found {
		return 0, 0, false
	}
	tpl, _, _ := strings.Cut(tag, "/") // a shard tag: t<id>/<shard>/<salt>
	return parsePair(tpl+":"+user, ":")
}

// ReconcileCursors is the reconciliation's hash of cursors, so each run goes on where the last one
// stopped: field "scan" (the SCAN cursor over claim hashes), "template" (the last template id
// checked) and "u:<template>" (the last user id whose counter was compared).
func ReconcileCursors() string { return Namespace() + "coupond:reconcile:cursors" }
