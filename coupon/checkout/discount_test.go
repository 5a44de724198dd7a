package checkout

import (
	"testing"

	"coupond/coupon"
	"coupond/ent/coupontemplate"
	"coupond/ent/schematype"

	"github.com/shopspring/decimal"
)

func dp(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }
func dm(s string) decimal.Decimal  { return decimal.RequireFromString(s) }

// tpl builds a template of shop 7 with the given rule.
func tpl(src coupontemplate.Source, tgt coupontemplate.Target, typ coupontemplate.Type, rule schematype.ConsumeRule) *coupon.Template {
	t := &coupon.Template{ID: 1, ShopNumber: 7, Source: src, Target: tgt, Type: typ, Consume: rule}
	if tgt == coupontemplate.TargetPRODUCT {
		g := "apple, pear"
		t.Goods = &g
	}
	return t
}

const (
	shop     = coupontemplate.SourceSHOP
	platform = coupontemplate.SourcePLATFORM
	product  = coupontemplate.TargetPRODUCT
	wide     = coupontemplate.TargetSHOP_WIDE
	fixed    = coupontemplate.TypeFIXED_OFF
	thresh   = coupontemplate.TypeTHRESHOLD_OFF
	percent  = coupontemplate.TypePERCENT_OFF
)

var (
	ruleFixed   = schematype.ConsumeRule{DiscountAmount: dp("10")}
	ruleThresh  = schematype.ConsumeRule{ThresholdAmount: dp("100"), DiscountAmount: dp("15")}
	rulePercent = schematype.ConsumeRule{DiscountRate: dp("0.8")}
)

// order7 is an order of shop 7: apple 60, bread 40 (100 in all).
func order7() *Order {
	return &Order{ID: 1, Shop: 7, Amount: dm("100"), Items: []Item{{Goods: "apple", Amount: dm("60")}, {Goods: "bread", Amount: dm("40")}}}
}

// TestDiscount is the table of the discount rule: every type × target × source, thresholds at
// the boundary, long rate expansions, half-up edges, caps, orders smaller than the discount, the
// shop rule and the stacking cut.
func TestDiscount(t *testing.T) {
	orderOf := func(shop int64, amount string, items ...Item) *Order {
		return &Order{ID: 1, Shop: shop, Amount: dm(amount), Items: items}
	}
	cases := []struct {
		name  string
		t     *coupon.Template
		o     *Order
		taken string
		want  string      // the discount when applicable
		code  coupon.Code // else the refusal
	}{
		// Every type × target × source on the same order of shop 7 (apple 60 + bread 40).
		{"fixed/wide/shop", tpl(shop, wide, fixed, ruleFixed), order7(), "0", "10", ""},
		{"fixed/wide/platform", tpl(platform, wide, fixed, ruleFixed), order7(), "0", "10", ""},
		{"fixed/product/shop", tpl(shop, product, fixed, ruleFixed), order7(), "0", "10", ""},
		{"fixed/product/platform", tpl(platform, product, fixed, ruleFixed), order7(), "0", "10", ""},
		{"threshold/wide/shop", tpl(shop, wide, thresh, ruleThresh), order7(), "0", "15", ""},
		{"threshold/wide/platform", tpl(platform, wide, thresh, ruleThresh), order7(), "0", "15", ""},
		{"threshold/product/shop: apples count 60 < 100", tpl(shop, product, thresh, ruleThresh), order7(), "0", "", coupon.CodeThresholdNotMet},
		{"threshold/product/platform: apples count 60 < 100", tpl(platform, product, thresh, ruleThresh), order7(), "0", "", coupon.CodeThresholdNotMet},
		{"percent/wide/shop", tpl(shop, wide, percent, rulePercent), order7(), "0", "20", ""},
		{"percent/wide/platform", tpl(platform, wide, percent, rulePercent), order7(), "0", "20", ""},
		{"percent/product/shop: 20% of the apples", tpl(shop, product, percent, rulePercent), order7(), "0", "12", ""},
		{"percent/product/platform: 20% of the apples", tpl(platform, product, percent, rulePercent), order7(), "0", "12", ""},

		// Thresholds at the boundary, compared by value.
		{"threshold exactly met", tpl(shop, wide, thresh, ruleThresh), orderOf(7, "100.00"), "0", "15", ""},
		{"threshold met with a different scale (7.00 == 7)", tpl(shop, wide, thresh, schematype.ConsumeRule{ThresholdAmount: dp("7"), DiscountAmount: dp("1")}), orderOf(7, "7.00"), "0", "1", ""},
		{"threshold one cent under", tpl(shop, wide, thresh, ruleThresh), orderOf(7, "99.99"), "0", "", coupon.CodeThresholdNotMet},
		{"threshold of a product coupon met by its goods exactly", tpl(shop, product, thresh, schematype.ConsumeRule{ThresholdAmount: dp("60"), DiscountAmount: dp("5")}), order7(), "0", "5", ""},
		{"percent with a threshold one cent under", tpl(shop, wide, percent, schematype.ConsumeRule{ThresholdAmount: dp("50"), DiscountRate: dp("0.9")}), orderOf(7, "49.99"), "0", "", coupon.CodeThresholdNotMet},

		// Rates with long expansions and half-up edges.
		{"rate 0.333: 10.00 × 0.667 = 6.67", tpl(shop, wide, percent, schematype.ConsumeRule{DiscountRate: dp("0.333")}), orderOf(7, "10.00"), "0", "6.67", ""},
		{"rate 0.875: 99.99 × 0.125 = 12.49875 → 12.50", tpl(shop, wide, percent, schematype.ConsumeRule{DiscountRate: dp("0.875")}), orderOf(7, "99.99"), "0", "12.50", ""},
		{"half-up at exactly half a cent: 0.10 × 0.05 = 0.005 → 0.01", tpl(shop, wide, percent, schematype.ConsumeRule{DiscountRate: dp("0.95")}), orderOf(7, "0.10"), "0", "0.01", ""},
		{"just under half a cent rounds down: 0.09 × 0.05 = 0.0045 → 0.00", tpl(shop, wide, percent, schematype.ConsumeRule{DiscountRate: dp("0.95")}), orderOf(7, "0.09"), "0", "0", ""},
		{"rate 0.3333 on 1.00 → 0.67", tpl(shop, wide, percent, schematype.ConsumeRule{DiscountRate: dp("0.3333")}), orderOf(7, "1.00"), "0", "0.67", ""},
		{"rate 0.0001: 9999999999.99 × 0.9999", tpl(shop, wide, percent, schematype.ConsumeRule{DiscountRate: dp("0.0001")}), orderOf(7, "9999999999.99"), "0", "9998999999.99", ""},

		// Caps.
		{"percent capped by maxDiscountAmount", tpl(shop, wide, percent, schematype.ConsumeRule{DiscountRate: dp("0.5"), MaxDiscountAmount: dp("30")}), orderOf(7, "100"), "0", "30", ""},
		{"percent just under the cap", tpl(shop, wide, percent, schematype.ConsumeRule{DiscountRate: dp("0.5"), MaxDiscountAmount: dp("30")}), orderOf(7, "59.98"), "0", "29.99", ""},
		{"percent equal to the cap", tpl(shop, wide, percent, schematype.ConsumeRule{DiscountRate: dp("0.5"), MaxDiscountAmount: dp("30.00")}), orderOf(7, "60"), "0", "30", ""},

		// Orders smaller than the discount: the discount is the base, payable 0.
		{"fixed larger than the order", tpl(shop, wide, fixed, schematype.ConsumeRule{DiscountAmount: dp("50")}), orderOf(7, "12.34"), "0", "12.34", ""},
		{"fixed larger than its goods", tpl(shop, product, fixed, schematype.ConsumeRule{DiscountAmount: dp("70")}), order7(), "0", "60", ""},
		{"an order of 0", tpl(shop, wide, fixed, ruleFixed), orderOf(7, "0"), "0", "", coupon.CodeNotApplicable},

		// Shop and goods.
		{"shop coupon on another shop's order", tpl(shop, wide, fixed, ruleFixed), orderOf(8, "100"), "0", "", coupon.CodeNotApplicable},
		{"shop coupon on an order naming no shop", tpl(shop, wide, fixed, ruleFixed), orderOf(0, "100"), "0", "", coupon.CodeNotApplicable},
		{"platform coupon on any shop's order", tpl(platform, wide, fixed, ruleFixed), orderOf(8, "100"), "0", "10", ""},
		{"product coupon, order without items", tpl(shop, product, fixed, ruleFixed), orderOf(7, "100"), "0", "", coupon.CodeNotApplicable},
		{"product coupon, none of its goods", tpl(platform, product, fixed, ruleFixed), orderOf(7, "5", Item{Goods: "bread", Amount: dm("5"), Shop: 7}), "0", "", coupon.CodeNotApplicable},
		{"goods list: pear matches after trimming", tpl(shop, product, percent, rulePercent), orderOf(7, "10", Item{Goods: "pear", Amount: dm("10"), Shop: 7}), "0", "2", ""},
		{"multi-shop cart: shop coupon measures its shop's items only", tpl(shop, wide, thresh, schematype.ConsumeRule{ThresholdAmount: dp("50"), DiscountAmount: dp("5")}),
			orderOf(0, "100", Item{Goods: "a", Amount: dm("40"), Shop: 7}, Item{Goods: "b", Amount: dm("60"), Shop: 8}), "0", "", coupon.CodeThresholdNotMet},
		{"multi-shop cart: shop coupon, its items meet the threshold", tpl(shop, wide, percent, rulePercent),
			orderOf(0, "100", Item{Goods: "a", Amount: dm("40"), Shop: 7}, Item{Goods: "b", Amount: dm("60"), Shop: 8}), "0", "8", ""},
		{"multi-shop cart without the coupon's shop", tpl(shop, product, fixed, ruleFixed),
			orderOf(0, "60", Item{Goods: "apple", Amount: dm("60"), Shop: 8}), "0", "", coupon.CodeNotApplicable},

		// Stacking: a platform coupon measures what remains after the shop coupons.
		{"platform threshold on what remains: 100 − 15 < 100", tpl(platform, wide, thresh, ruleThresh), orderOf(7, "100"), "15", "", coupon.CodeThresholdNotMet},
		{"platform threshold on what remains: 120 − 20 = 100 exactly", tpl(platform, wide, thresh, ruleThresh), orderOf(7, "120"), "20", "15", ""},
		{"platform percent on what remains", tpl(platform, wide, percent, rulePercent), orderOf(7, "100"), "15", "17", ""},
		{"platform fixed larger than what remains", tpl(platform, wide, fixed, schematype.ConsumeRule{DiscountAmount: dp("30")}), orderOf(7, "40"), "25", "15", ""},
		{"platform with nothing left", tpl(platform, wide, fixed, ruleFixed), orderOf(7, "10"), "10", "", coupon.CodeNotApplicable},
		{"shop coupon ignores taken", tpl(shop, wide, fixed, ruleFixed), orderOf(7, "100"), "95", "10", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := *c.o
			if err := o.Validate(); err != nil {
				t.Fatalf("order invalid: %v", err)
			}
			got, err := Discount(c.t, &o, dm(c.taken))
			if c.code != "" {
				if err == nil || err.Code != c.code {
					t.Fatalf("got %s, %v; want code %s", got, err, c.code)
				}
				if !got.IsZero() {
					t.Fatalf("refused with discount %s", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !got.Equal(dm(c.want)) {
				t.Fatalf("discount %s, want %s", got, c.want)
			}
			if got.Exponent() < -2 {
				t.Fatalf("discount %s has more than 2 decimals", got)
			}
			if got.GreaterThan(o.Amount) || got.IsNegative() {
				t.Fatalf("discount %s outside [0, %s]", got, o.Amount)
			}
		})
	}
}

func TestDiscountThresholdReason(t *testing.T) {
	o := &Order{ID: 1, Shop: 7, Amount: dm("99.99")}
	_, err := Discount(tpl(shop, wide, thresh, ruleThresh), o, decimal.Zero)
	if err == nil || err.Message != "spend 0.01 more: the coupon needs 100.00 and the order counts 99.99" {
		t.Fatalf("reason %v", err)
	}
}

// TestOrderValidate: 3 decimals anywhere, negative amounts, items not adding up and too many
// items are INVALID_INPUT naming the field; item shops default to the order's.
func TestOrderValidate(t *testing.T) {
	cases := []struct {
		name  string
		o     Order
		field string // "" when valid
	}{
		{"valid", Order{ID: 1, Amount: dm("10.5"), Items: []Item{{Goods: "a", Amount: dm("10.50")}}}, ""},
		{"3 decimals in amount", Order{ID: 1, Amount: dm("10.005")}, "amount"},
		{"3 decimals with a zero tail are 2", Order{ID: 1, Amount: dm("10.500")}, ""},
		{"3 decimals in an item", Order{ID: 1, Amount: dm("10.01"), Items: []Item{{Goods: "a", Amount: dm("10.005")}, {Goods: "b", Amount: dm("0.005")}}}, "items.0.amount"},
		{"negative amount", Order{ID: 1, Amount: dm("-1")}, "amount"},
		{"too large", Order{ID: 1, Amount: dm("10000000000")}, "amount"},
		{"items do not add up", Order{ID: 1, Amount: dm("10"), Items: []Item{{Goods: "a", Amount: dm("9.99")}}}, "amount"},
		{"empty goods", Order{ID: 1, Amount: dm("1"), Items: []Item{{Goods: "", Amount: dm("1")}}}, "items.0.goods"},
		{"no order id", Order{Amount: dm("1")}, "orderId"},
		{"too many items", Order{ID: 1, Amount: dm("0"), Items: make([]Item, MaxItems+1)}, "items"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.o.Validate()
			if c.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			errs := coupon.AsErrors(err)
			if len(errs) == 0 || errs[0].Code != coupon.CodeInvalidInput || joinField(errs[0].Field) != c.field {
				t.Fatalf("got %v, want INVALID_INPUT on %s", err, c.field)
			}
		})
	}
	o := Order{ID: 1, Shop: 9, Amount: dm("3"), Items: []Item{{Goods: "a", Amount: dm("1")}, {Goods: "b", Amount: dm("2"), Shop: 4}}}
	if err := o.Validate(); err != nil || o.Items[0].Shop != 9 || o.Items[1].Shop != 4 {
		t.Fatalf("item shops %+v, %v", o.Items, err)
	}
}

func joinField(f []string) string {
	s := ""
	for i, p := range f {
		if i > 0 {
			s += "."
		}
		s += p
	}
	return s
}
