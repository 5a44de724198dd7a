package coupon

// Reasons a claim Redis accepted ends FAILED (redemption_failure.reason), as users read them.
const (
	// ReasonStockDrift: the database had no stock left for the claim (Redis showed more than
	// MySQL had: its hash is then rebuilt from MySQL).
	ReasonStockDrift = "the coupon ran out of stock before your claim was recorded"
	// ReasonLimitReached: the user already held limitPerPerson coupons of the template in the
	// database (Redis had lost their counter).
	ReasonLimitReached = "you already hold as many of these coupons as allowed"
	// ReasonDuplicateRequest: the claim repeated the requestId of one MySQL already holds (Redis
	// had lost the first answer); it ends with that claim's coupon.
	ReasonDuplicateRequest = "the same request was already granted"
	// ReasonLost: Redis lost the claim with its last second of writes (an AOF fsynced every
	// second, a power loss) before the persister recorded it.
	ReasonLost = "your claim was lost in a storage failure before it was recorded; please claim again"
)
