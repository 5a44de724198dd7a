package graph

import (
	"context"
	"strconv"

	"coupond/coupon"
	"coupond/coupon/checkout"
	"coupond/graph/model"
	"coupond/graph/scalar"
)

// orderOf decodes an OrderInput (an "order" argument or input field: field paths start there). A
// malformed id is BAD_USER_INPUT; amounts and items are checked by the domain.
func orderOf(in *model.OrderInput) (checkout.Order, error) {
	id, err := scalar.ParseID(in.OrderID)
	if err != nil {
		return checkout.Order{}, err
	}
	o := checkout.Order{ID: id, Amount: in.Amount, Items: make([]checkout.Item, len(in.Items))}
	var errs coupon.ValidationError
	shop, e := checkout.ParseShop(deref(in.ShopNumber), "shopNumber")
	if e != nil {
		errs = append(errs, &coupon.Error{Code: e.Code, Field: []string{"order", "shopNumber"}, Message: e.Message})
	}
	o.Shop = shop
	for i, it := range in.Items {
		s, e := checkout.ParseShop(deref(it.ShopNumber), "shopNumber")
		if e != nil {
			errs = append(errs, &coupon.Error{Code: e.Code, Field: []string{"order", "items", strconv.Itoa(i), "shopNumber"}, Message: e.Message})
		}
		o.Items[i] = checkout.Item{Goods: it.Goods, Amount: it.Amount, Shop: s}
	}
	if len(errs) > 0 {
		return o, errs
	}
	return o, nil
}

// settlementRef decodes the ids naming a settlement (SettlementRefInput, ConfirmCouponPaymentInput).
func settlementRef(order, coupon string) (orderID, couponID int64, err error) {
	if orderID, err = scalar.ParseID(order); err != nil {
		return 0, 0, err
	}
	couponID, err = scalar.ParseID(coupon)
	return orderID, couponID, err
}

// settlementPayload is the payload of a settlement mutation.
func settlementPayload(s *checkout.Settlement, err error) (*model.SettlementPayload, error) {
	userErrors, err := payload(err)
	return &model.SettlementPayload{Settlement: s, UserErrors: userErrors}, err
}

// settlementCoupon is the settlement's coupon, read when the call that answered did not read it.
func settlementCoupon(ctx context.Context, c *checkout.Service, s *checkout.Settlement) (*coupon.UserCoupon, error) {
	uc := s.Coupon
	if uc == nil {
		var err error
		if uc, err = c.Coupon(ctx, s.UserID, s.CouponID); err != nil {
			return nil, err
		}
	}
	return &coupon.UserCoupon{UserCoupon: uc}, nil
}

// quoteModels maps quotes to the API's CouponQuote.
func quoteModels(quotes []checkout.Quote) []*model.CouponQuote {
	out := make([]*model.CouponQuote, len(quotes))
	for i := range quotes {
		q := &quotes[i]
		m := &model.CouponQuote{Coupon: &coupon.UserCoupon{UserCoupon: q.Coupon}, Applicable: q.Applicable, Discount: q.Discount}
		if q.Code != "" {
			m.Code, m.Reason = &q.Code, &q.Reason
		}
		out[i] = m
	}
	return out
}

// combinationModel maps a combination to the API's CouponCombination (nil for nil).
func combinationModel(c *checkout.Combination) *model.CouponCombination {
	if c == nil {
		return nil
	}
	return &model.CouponCombination{Coupons: quoteModels(c.Quotes), Discount: c.Discount, Payable: c.Payable}
}
