package checkout

import (
	"fmt"
	"strconv"

	"coupond/coupon"

	"github.com/shopspring/decimal"
)

// Limits of one order as the checkout reads it.
const (
	// MaxItems bounds the items of one order, so an order costs bounded work.
	MaxItems = 500
	// maxGoodsLength bounds one item's goods, as a template's goods are bounded.
	maxGoodsLength = 255
)

// maxMoney is the largest amount a DECIMAL(12,2) column holds.
var maxMoney = decimal.RequireFromString("9999999999.99")

// Order is an order as the checkout prices it. Amount is the whole order; when Items are given
// they must add up to Amount exactly. Shop is the order's shop (0: not named); an item's Shop
// defaults to it (multi-shop carts name the shop per item).
type Order struct {
	ID     int64
	Shop   int64
	Amount decimal.Decimal
	Items  []Item
}

// Item is one line of an order.
type Item struct {
	Goods  string
	Amount decimal.Decimal
	Shop   int64
}

// ParseShop reads a shop number as the API writes it (a decimal string); "" is no shop.
func ParseShop(s, field string) (int64, *coupon.Error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, coupon.FieldError(field, fmt.Sprintf("shopNumber %q is not a positive integer", trim(s)))
	}
	return n, nil
}

// Validate checks the order and fills every item's shop from the order's: amounts are ≥ 0, at
// most 2 decimals (more is refused, never rounded) and within the money columns; goods are
// named; items add up to Amount. Field paths are relative to the order input. The errors are a
// coupon.ValidationError.
func (o *Order) Validate() error {
	var errs coupon.ValidationError
	if o.ID <= 0 {
		errs = append(errs, coupon.FieldError("orderId", "orderId must be a positive id"))
	}
	if e := checkMoney(o.Amount, []string{"amount"}); e != nil {
		errs = append(errs, e)
	}
	if len(o.Items) > MaxItems {
		errs = append(errs, coupon.FieldError("items", fmt.Sprintf("an order has at most %d items", MaxItems)))
		return errs
	}
	sum := decimal.Zero
	for i := range o.Items {
		it := &o.Items[i]
		idx := strconv.Itoa(i)
		if e := checkMoney(it.Amount, []string{"items", idx, "amount"}); e != nil {
			errs = append(errs, e)
		}
		if it.Goods == "" || len(it.Goods) > maxGoodsLength {
			errs = append(errs, &coupon.Error{Code: coupon.CodeInvalidInput, Field: []string{"items", idx, "goods"},
				Message: fmt.Sprintf("goods must be 1 to %d bytes", maxGoodsLength)})
		}
		if it.Shop == 0 {
			it.Shop = o.Shop
		}
		sum = sum.Add(it.Amount)
	}
	if len(errs) == 0 && len(o.Items) > 0 && !sum.Equal(o.Amount) {
		errs = append(errs, coupon.FieldError("amount",
			fmt.Sprintf("amount %s is not the sum of the items (%s)", o.Amount.StringFixed(2), sum.StringFixed(2))))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// checkMoney refuses negative amounts, amounts with more than 2 decimals and amounts too large
// for the money columns.
func checkMoney(d decimal.Decimal, field []string) *coupon.Error {
	name := field[len(field)-1]
	switch {
	case d.IsNegative():
		return &coupon.Error{Code: coupon.CodeInvalidInput, Field: field, Message: name + " must not be negative"}
	case !d.Equal(d.Truncate(2)):
		return &coupon.Error{Code: coupon.CodeInvalidInput, Field: field, Message: name + " must have at most 2 decimals"}
	case d.GreaterThan(maxMoney):
		return &coupon.Error{Code: coupon.CodeInvalidInput, Field: field, Message: name + " is too large"}
	}
	return nil
}

func trim(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}
