package graph

import "coupond/coupon"

// Resolver holds the domain services the resolvers call.
type Resolver struct {
	Templates *coupon.TemplateAdmin
	Redeemer  *coupon.Redeemer
}
