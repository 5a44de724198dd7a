package graph

import (
	"context"
	"errors"

	"coupond/graph/model"
	"coupond/graph/scalar"

	"github.com/99designs/gqlgen/graphql"
)

// bindQuote is applicableCoupons' call on its order argument (orderInput). Its plan writes a
// wallet's hundreds of quotes one after the other into one buffer, where the executor marshals
// each in a goroutine of its own (gqlgen marshals every list of objects so).
func bindQuote(r *Resolver, args map[string]any) (graphql.Resolver, bool) {
	obj, ok := args["order"].(map[string]any)
	if !ok {
		return nil, false
	}
	order, ok := orderInput(obj)
	if !ok {
		return nil, false
	}
	return func(ctx context.Context) (any, error) { return r.Query().ApplicableCoupons(ctx, order) }, true
}

// errNullQuote is what the resolver never answers: no list, or a quote or coupon that is null.
var errNullQuote = errors.New("applicableCoupons answered a null quote")

// checkQuotes refuses an answer the executor could not write as [CouponQuote!]! with non-null
// coupons.
func checkQuotes(out any) error {
	quotes, _ := out.([]*model.CouponQuote)
	if quotes == nil {
		return errNullQuote
	}
	for _, q := range quotes {
		if q == nil || q.Coupon == nil || q.Coupon.UserCoupon == nil {
			return errNullQuote
		}
	}
	return nil
}

// orderInput is an OrderInput as the generated code unmarshals it from gqlgen's coerced
// variables: orderId with graphql.UnmarshalID, shopNumber with graphql.UnmarshalString where it is
// not null, amount with scalar.UnmarshalDecimal, items (null, or a list or one item) likewise;
// false when any of them does not unmarshal.
func orderInput(obj map[string]any) (model.OrderInput, bool) {
	var in model.OrderInput
	var err, e error
	in.OrderID, err = graphql.UnmarshalID(obj["orderId"])
	in.ShopNumber, e = optionalString(obj["shopNumber"])
	err = errors.Join(err, e)
	in.Amount, e = scalar.UnmarshalDecimal(obj["amount"])
	err = errors.Join(err, e)
	if items := obj["items"]; items != nil {
		for _, v := range graphql.CoerceList(items) {
			it, ok := v.(map[string]any)
			if !ok {
				return in, false
			}
			item := &model.OrderItemInput{}
			item.Goods, e = graphql.UnmarshalString(it["goods"])
			err = errors.Join(err, e)
			item.Amount, e = scalar.UnmarshalDecimal(it["amount"])
			err = errors.Join(err, e)
			item.ShopNumber, e = optionalString(it["shopNumber"])
			err = errors.Join(err, e)
			in.Items = append(in.Items, item)
		}
	}
	return in, err == nil
}
