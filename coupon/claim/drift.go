package claim

import "coupond/coupon"

// Failure reasons of claims Redis accepted and MySQL refused (see package coupon).
const (
	ReasonStockDrift       = coupon.ReasonStockDrift
	ReasonLimitReached     = coupon.ReasonLimitReached
	ReasonDuplicateRequest = coupon.ReasonDuplicateRequest
)

// failedClaim is a claim MySQL refused, with the reason.
type failedClaim struct {
	claim
	reason      string
	duplicateOf string // ReasonDuplicateRequest: the redemption id of the claim it repeats
}

// failureError is the refusal a sync request answers for a claim that ended FAILED with reason.
func failureError(reason string) error {
	if reason == ReasonLimitReached {
		return coupon.Errorf(coupon.CodeLimitReached, "%s", reason)
	}
	return coupon.Errorf(coupon.CodeOutOfStock, "%s", reason)
}
