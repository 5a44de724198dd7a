package checkout

import (
	"testing"
	"time"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/schematype"

	"github.com/shopspring/decimal"
)

// quoted prices templates on o as Applicable does (one coupon each, expiring in order).
func quoted(o *Order, ts ...*coupon.Template) []Quote {
	var qs []Quote
	for i, t := range ts {
		t.ID = int64(100 + i)
		c := &ent.UserCoupon{ID: int64(i + 1), TemplateID: t.ID, ValidEndTime: time.Now().Add(time.Duration(i+1) * time.Hour)}
		q := Quote{Coupon: c, Template: t}
		var err *coupon.Error
		if q.Discount, err = Discount(t, o, decimal.Zero); err == nil {
			q.Applicable = true
		}
		qs = append(qs, q)
	}
	return qs
}

func shopOf(t *coupon.Template, shop int64) *coupon.Template { t.ShopNumber = shop; return t }

// TestBestOf: the stacking rule's optimum, also where the greedy choice (the biggest shop
// coupon) loses the platform coupon's threshold.
func TestBestOf(t *testing.T) {
	thr := func(th, d string) schematype.ConsumeRule {
		return schematype.ConsumeRule{ThresholdAmount: dp(th), DiscountAmount: dp(d)}
	}
	cases := []struct {
		name  string
		o     *Order
		ts    []*coupon.Template
		want  string
		picks []int64 // template ids, shop coupons then platform
	}{
		{"one shop, one platform: both", &Order{ID: 1, Shop: 7, Amount: dm("100")},
			[]*coupon.Template{tpl(shop, wide, fixed, ruleFixed), tpl(platform, wide, percent, rulePercent)}, "28", []int64{100, 101}},
		{"two shop coupons of one shop: the better one only", &Order{ID: 1, Shop: 7, Amount: dm("100")},
			[]*coupon.Template{tpl(shop, wide, fixed, ruleFixed), tpl(shop, wide, thresh, ruleThresh)}, "15", []int64{101}},
		{"greedy loses: the small shop coupon keeps the platform threshold", &Order{ID: 1, Shop: 7, Amount: dm("100")},
			[]*coupon.Template{tpl(shop, wide, fixed, schematype.ConsumeRule{DiscountAmount: dp("10")}),
				tpl(shop, wide, fixed, schematype.ConsumeRule{DiscountAmount: dp("1")}),
				tpl(platform, wide, thresh, thr("95", "20"))}, "21", []int64{101, 102}},
		{"two platform coupons: one only", &Order{ID: 1, Shop: 7, Amount: dm("100")},
			[]*coupon.Template{tpl(platform, wide, fixed, ruleFixed), tpl(platform, wide, thresh, ruleThresh)}, "15", []int64{101}},
		{"multi-shop cart: one per shop plus platform", &Order{ID: 1, Amount: dm("100"), Items: []Item{{Goods: "a", Amount: dm("40"), Shop: 7}, {Goods: "b", Amount: dm("60"), Shop: 8}}},
			[]*coupon.Template{tpl(shop, wide, fixed, ruleFixed), shopOf(tpl(shop, wide, percent, rulePercent), 8), tpl(platform, wide, thresh, thr("70", "7"))}, "29", []int64{100, 101, 102}},
		{"nothing applies", &Order{ID: 1, Shop: 9, Amount: dm("100")},
			[]*coupon.Template{tpl(shop, wide, fixed, ruleFixed)}, "0", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.o.Validate(); err != nil {
				t.Fatal(err)
			}
			got := BestOf(quoted(c.o, c.ts...), c.o)
			if !got.Discount.Equal(dm(c.want)) || !got.Payable.Equal(c.o.Amount.Sub(dm(c.want))) {
				t.Fatalf("discount %s payable %s, want %s", got.Discount, got.Payable, c.want)
			}
			var ids []int64
			sum := decimal.Zero
			for _, q := range got.Quotes {
				ids = append(ids, q.Template.ID)
				sum = sum.Add(q.Discount)
			}
			if len(ids) != len(c.picks) {
				t.Fatalf("picked %v, want %v", ids, c.picks)
			}
			for i := range ids {
				if ids[i] != c.picks[i] {
					t.Fatalf("picked %v, want %v", ids, c.picks)
				}
			}
			if !sum.Equal(got.Discount) {
				t.Fatalf("quotes add up to %s, combination says %s", sum, got.Discount)
			}
		})
	}
}
