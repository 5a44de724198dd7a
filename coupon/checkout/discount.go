package checkout

import (
	"strings"

	"coupond/coupon"
	"coupond/ent/coupontemplate"

	"github.com/shopspring/decimal"
)

var one = decimal.NewFromInt(1)

// Discount is the money template t takes off order o (validated), exactly, or why it takes
// nothing: a *coupon.Error with code NOT_APPLICABLE (wrong shop or goods, nothing to discount) or
// THRESHOLD_NOT_MET (the message says how much is missing). taken is what coupons applied before
// this one took off the order (the stacking rule: shop coupons first, then the platform one).
//
// The base the coupon measures — its threshold and its discount — is:
//   - SHOP source: only its own shop's money: the items of that shop, or with no items the whole
//     order when the order is that shop's; PLATFORM source: the whole order, in any shop;
//   - target PRODUCT: only the items whose goods are among the template's (a comma-separated
//     list); SHOP_WIDE: all of the above;
//   - PLATFORM source: at most what remains to pay after taken.
//
// Then: a threshold, when the template has one (THRESHOLD_OFF always), needs base ≥ threshold
// (compared by value: 7.00 == 7); FIXED_OFF and THRESHOLD_OFF take discountAmount; PERCENT_OFF
// takes base × (1 − discountRate) rounded half-up to cents, at most maxDiscountAmount. The
// discount never exceeds the base, so what is left to pay is never negative.
func Discount(t *coupon.Template, o *Order, taken decimal.Decimal) (decimal.Decimal, *coupon.Error) {
	base, err := baseOf(t, o)
	if err != nil {
		return decimal.Zero, err
	}
	if t.Source == coupontemplate.SourcePLATFORM {
		base = decimal.Min(base, decimal.Max(o.Amount.Sub(taken), decimal.Zero))
	}
	if th := t.ThresholdAmount(); th != nil && base.LessThan(*th) {
		return decimal.Zero, coupon.Errorf(coupon.CodeThresholdNotMet, "spend %s more: the coupon needs %s and the order counts %s",
			th.Sub(base).StringFixed(2), th.StringFixed(2), base.StringFixed(2))
	}
	if !base.IsPositive() {
		return decimal.Zero, coupon.Errorf(coupon.CodeNotApplicable, "nothing in the order is left to discount")
	}
	var d decimal.Decimal
	switch t.Type {
	case coupontemplate.TypeFIXED_OFF, coupontemplate.TypeTHRESHOLD_OFF:
		if a := t.DiscountAmount(); a != nil {
			d = *a
		}
	case coupontemplate.TypePERCENT_OFF:
		if r := t.DiscountRate(); r != nil {
			d = base.Mul(one.Sub(*r)).Round(2) // amounts are ≥ 0: Round is half-up
		}
		if m := t.MaxDiscountAmount(); m != nil {
			d = decimal.Min(d, *m)
		}
	}
	return decimal.Min(d, base), nil
}

// baseOf is the money of order o that template t may discount, before the stacking cut.
func baseOf(t *coupon.Template, o *Order) (decimal.Decimal, *coupon.Error) {
	shopOnly := t.Source == coupontemplate.SourceSHOP
	if len(o.Items) == 0 {
		switch {
		case t.Target == coupontemplate.TargetPRODUCT:
			return decimal.Zero, coupon.Errorf(coupon.CodeNotApplicable, "the coupon is for %s only and the order lists no goods", goodsOf(t))
		case shopOnly && o.Shop != t.ShopNumber:
			return decimal.Zero, notThisShop(t)
		}
		return o.Amount, nil
	}
	goods := map[string]bool{}
	if t.Target == coupontemplate.TargetPRODUCT {
		for g := range strings.SplitSeq(goodsOf(t), ",") {
			goods[strings.TrimSpace(g)] = true
		}
	}
	base, inShop, matched := decimal.Zero, false, false
	for _, it := range o.Items {
		if shopOnly && it.Shop != t.ShopNumber {
			continue
		}
		inShop = true
		if t.Target == coupontemplate.TargetPRODUCT && !goods[it.Goods] {
			continue
		}
		matched = true
		base = base.Add(it.Amount)
	}
	switch {
	case !inShop:
		return decimal.Zero, notThisShop(t)
	case !matched:
		return decimal.Zero, coupon.Errorf(coupon.CodeNotApplicable, "the coupon is for %s only and the order has none", goodsOf(t))
	}
	return base, nil
}

func notThisShop(t *coupon.Template) *coupon.Error {
	return coupon.Errorf(coupon.CodeNotApplicable, "the coupon is for orders of shop %d only", t.ShopNumber)
}

func goodsOf(t *coupon.Template) string {
	if t.Goods == nil {
		return ""
	}
	return *t.Goods
}
