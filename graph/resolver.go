package graph

import (
	"coupond/coupon/checkout"
	"coupond/coupon/claim"
	"coupond/coupon/code"
	"coupond/coupon/distribution"
	"coupond/coupon/reconcile"
	"coupond/coupon/reminder"
	"coupond/coupon/stats"
	"coupond/coupon/template"
	"coupond/coupon/wallet"
	"coupond/graph/model"
)

// Resolver holds the domain services the resolvers call.
type Resolver struct {
	Templates *template.Admin
	Redeemer  *claim.Redeemer
	Wallet    *wallet.Wallet
	// Codes renders coupons' codes (UserCoupon.code).
	Codes *code.Codec

	Distribution *distribution.Service
	Checkout     *checkout.Service
	Reminders    *reminder.Service
	Stats        *stats.Service
	Reconciler   *reconcile.Reconciler

	// Settings are the server's settings the viewer query reports.
	Settings model.ServerSettings
}
