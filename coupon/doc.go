// Package coupon is the vocabulary every capability shares, and nothing else: the caller (Actor,
// Role), typed errors (Error, Code, ValidationError), the coupon template (Template), a user's coupon
// (UserCoupon) and a page of a listing (Page). It does no I/O and imports none of its subpackages.
//
// The capabilities live below it, one package each; siblings import only downward:
//
//	keys/      every Redis key and member format, and the hash-tag rule
//	issue/     "a coupon now exists": user_coupon row builders and the after-commit work (expiry
//	           bucket, stats), shared by claims and distribution
//	template/  template administration, validation, reads, the cache and its lookup chain, Bloom filter
//	claim/     redeemCoupon: claim script and batcher, sync path, outbox persister, drift, redemption status
//	expiry/    expiry buckets and the sweep
//	wallet/    a user's coupons
//	checkout/  the discount rule, applicable coupons, the best combination, and lock, confirm,
//	           release and refund of a coupon on an order
//
// Imports: claim → template, issue, expiry, keys; issue → expiry, keys; template → keys;
// wallet → coupon only; checkout → keys. Nothing but graph/ and jobs/ imports claim.
package coupon
