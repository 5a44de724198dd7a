package graph

import (
	"coupond/coupon/checkout"
	"coupond/coupon/claim"
	"coupond/coupon/distribution"
	"coupond/coupon/reconcile"
	"coupond/coupon/template"
	"coupond/coupon/wallet"
)

// Resolver holds the domain services the resolvers call.
type Resolver struct {
	Templates *template.Admin
	Redeemer  *claim.Redeemer
	Wallet    *wallet.Wallet

	Distribution *distribution.Service
	Checkout     *checkout.Service
	Reconciler   *reconcile.Reconciler
}
