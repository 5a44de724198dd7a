package auth

import (
	"time"

	"coupond/coupon"
)

// ParseWithExpiry is Parse also returning the token's exp: what a long-lived session (a
// websocket) needs to end itself when the token does. It verifies the token every time (no cache).
func (s *Signer) ParseWithExpiry(token string) (coupon.Actor, time.Time, error) {
	return s.verify(token)
}
