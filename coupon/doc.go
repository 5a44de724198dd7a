// Package coupon is the vocabulary every capability shares, and nothing else: the caller (Actor,
// Role), typed errors (Error, Code, ValidationError), the coupon template (Template), a user's coupon
// (UserCoupon) and a page of a listing (Page). It does no I/O and imports none of its subpackages.
//
// The capabilities live below it, one package each:
//
//	keys/          every Redis key and member format, and the hash-tag rule
//	code/          a coupon's code: its id under a keyed permutation and check, and back
//	lease/         the Redis lease (one persister per template, one runner per distribution task)
//	expiry/        expiry buckets and the sweep
//	issue/         "a coupon now exists": user_coupon row builders and the after-commit work (expiry
//	               bucket, stats), shared by claims and distribution
//	template/      template administration, validation, reads, the cache and its lookup chain, Bloom filter
//	claim/         redeemCoupon: claim script and batcher, sync path, outbox persister, drift, redemption status
//	distribution/  bulk issue from an uploaded spreadsheet
//	reconcile/     the books of a template in both stores, drift records
//	checkout/      the discount rule, applicable coupons, the best combination, and lock, confirm,
//	               release and refund of a coupon on an order
//	stats/         templateStats, shopStats and their roll-up
//	wallet/        a user's coupons
//	reminder/      reminders before a claim window opens
//	archive/       old coupons moved to user_coupon_archive
//
// They import only downward, in three layers. At the bottom keys, code (→ nothing), lease and expiry
// (expiry → keys).
// In the middle issue (→ expiry, keys), template (→ issue, keys: a cache rebuild counts the
// distribution rows issue says MySQL does not hold yet) and checkout (→ keys). On top the
// capabilities only the API and the jobs call: claim and distribution (→ template, issue, keys,
// lease), reconcile (→ template, issue, keys), stats (→ checkout for its lock counting, template,
// keys), wallet (→ coupon only), reminder (→ keys, lease) and archive (→ expiry, keys, lease); no
// package of coupon/ imports one of them (graph/, jobs/, services/, package main and bench/ do). Any
// of them may import coupon, ent, lua, idgen and store; none imports graph/, jobs/, services/ or
// auth. imports_test.go at the module root holds these rules as a table and fails on any
// module-internal import outside it.
package coupon
