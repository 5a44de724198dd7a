package model

// Node is what the GraphQL Node interface resolves to: *coupon.Template, *coupon.UserCoupon or
// *coupon.Redemption (the domain's types, which cannot carry gqlgen's marker methods).
type Node any
