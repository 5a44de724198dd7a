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
