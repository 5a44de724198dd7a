package coupon

import "strconv"

// Redis keys. Every key of one template carries the hash tag {t<id>}, so the redeem script's keys
// live in one Cluster slot. This is the only place keys are built (the seed's D-05 was a second,
// wrongly formatted builder).

func tag(templateID int64) string { return "{t" + strconv.FormatInt(templateID, 10) + "}" }

// TemplateKey is the template cache hash.
func TemplateKey(templateID int64) string { return tag(templateID) + ":tpl" }

// TemplateNullKey marks an id known not to exist (null-value cache).
func TemplateNullKey(templateID int64) string { return tag(templateID) + ":null" }

// TemplateLockKey is the cache rebuild lock.
func TemplateLockKey(templateID int64) string { return tag(templateID) + ":lock" }

// BloomKey is the Bloom filter bitmap of existing template ids, shared by all instances.
const BloomKey = "coupond:bloom:templates"

// ClaimCounterKey is a user's claim hash for one template: field "n" counts the coupons the user
// holds against limitPerPerson (given back when a claim fails), field "seq" hands out
// receive_count values and never goes down. Expires at the template's end.
func ClaimCounterKey(templateID, userID int64) string {
	return tag(templateID) + ":u:" + strconv.FormatInt(userID, 10)
}

// OutboxKey is the template's outbox stream of accepted claims, drained by the persister.
func OutboxKey(templateID int64) string { return tag(templateID) + ":outbox" }

// RequestKey remembers the answer to a user's claim with one client requestId.
func RequestKey(templateID, userID int64, requestID string) string {
	return tag(templateID) + ":req:" + strconv.FormatInt(userID, 10) + ":" + requestID
}

// RedemptionKey maps a redemption id to its user while the claim may still be pending.
func RedemptionKey(templateID int64, redemptionID string) string {
	return tag(templateID) + ":rd:" + redemptionID
}

// UserRateKey counts a user's claim attempts on one template in the current rate window.
func UserRateKey(templateID, userID int64) string {
	return tag(templateID) + ":rl:" + strconv.FormatInt(userID, 10)
}

// CardBagKey is a user's card bag: members "<template>_<coupon>", score the claim time (ms).
func CardBagKey(userID int64) string { return "coupond:bag:" + strconv.FormatInt(userID, 10) }

// ExpiryBucketKey is the set of coupons of one template ending within one minute (members
// "<user>:<coupon>"), drained by that bucket's expiry task. minuteUnix is the minute's start.
func ExpiryBucketKey(templateID, minuteUnix int64) string {
	return tag(templateID) + ":exp:" + strconv.FormatInt(minuteUnix, 10)
}

// DailyStatsKey is the template's realtime counters of one UTC day (fields issued, used, expired).
func DailyStatsKey(templateID int64, day string) string { return tag(templateID) + ":stats:" + day }
