package graph

import (
	"context"
	"errors"

	"coupond/graph/model"
	"coupond/graph/scalar"

	"github.com/99designs/gqlgen/graphql"
)

// The settlement mutations' plans (lockCoupon, confirmCouponPayment, releaseCoupon, refundCoupon)
// answer a SettlementPayload whose settlement selection leaves out coupon (a resolver of its own:
// such documents take the executor).

// bindLock is lockCoupon's call on its input: couponId with graphql.UnmarshalID, order as
// orderInput.
func bindLock(r *Resolver, args map[string]any) (graphql.Resolver, bool) {
	obj, ok := args["input"].(map[string]any)
	if !ok {
		return nil, false
	}
	order, ok := obj["order"].(map[string]any)
	if !ok {
		return nil, false
	}
	o, ok := orderInput(order)
	c, err := graphql.UnmarshalID(obj["couponId"])
	if !ok || err != nil {
		return nil, false
	}
	in := model.LockCouponInput{CouponID: c, Order: &o}
	return func(ctx context.Context) (any, error) { return r.Mutation().LockCoupon(ctx, in) }, true
}

// bindConfirm is confirmCouponPayment's call on its input: orderId and couponId with
// graphql.UnmarshalID, orderAmount with scalar.UnmarshalDecimal.
func bindConfirm(r *Resolver, args map[string]any) (graphql.Resolver, bool) {
	obj, ok := args["input"].(map[string]any)
	if !ok {
		return nil, false
	}
	var in model.ConfirmCouponPaymentInput
	var err, e error
	in.OrderID, in.CouponID, err = settlementRefInput(obj)
	in.OrderAmount, e = scalar.UnmarshalDecimal(obj["orderAmount"])
	if errors.Join(err, e) != nil {
		return nil, false
	}
	return func(ctx context.Context) (any, error) { return r.Mutation().ConfirmCouponPayment(ctx, in) }, true
}

// bindRelease is releaseCoupon's call on its SettlementRefInput.
func bindRelease(r *Resolver, args map[string]any) (graphql.Resolver, bool) {
	return bindRef(args, r.Mutation().ReleaseCoupon)
}

// bindRefund is refundCoupon's call on its SettlementRefInput.
func bindRefund(r *Resolver, args map[string]any) (graphql.Resolver, bool) {
	return bindRef(args, r.Mutation().RefundCoupon)
}

// bindRef is the call of resolve on a SettlementRefInput argument "input".
func bindRef(args map[string]any, resolve func(context.Context, model.SettlementRefInput) (*model.SettlementPayload, error)) (graphql.Resolver, bool) {
	obj, ok := args["input"].(map[string]any)
	if !ok {
		return nil, false
	}
	var in model.SettlementRefInput
	var err error
	if in.OrderID, in.CouponID, err = settlementRefInput(obj); err != nil {
		return nil, false
	}
	return func(ctx context.Context) (any, error) { return resolve(ctx, in) }, true
}

// settlementRefInput is the orderId and couponId of a settlement's input, with graphql.UnmarshalID.
func settlementRefInput(obj map[string]any) (orderID, couponID string, err error) {
	var e error
	orderID, err = graphql.UnmarshalID(obj["orderId"])
	couponID, e = graphql.UnmarshalID(obj["couponId"])
	return orderID, couponID, errors.Join(err, e)
}
