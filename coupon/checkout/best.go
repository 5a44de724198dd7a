package checkout

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"coupond/coupon"
	"coupond/ent/coupontemplate"

	"github.com/shopspring/decimal"
)

// maxStates bounds the distinct shop-discount totals Best weighs against the platform coupons
// (multi-shop carts): beyond it, the largest totals are kept.
const maxStates = 4096

// Combination is the best set of coupons for an order under the stacking rule.
type Combination struct {
	Quotes   []Quote // shop coupons (by shop), then the platform coupon with its stacked discount
	Discount decimal.Decimal
	Payable  decimal.Decimal
}

// Best is the set of the caller's coupons that takes the most off order o under the stacking
// rule: at most one SHOP coupon per shop and one PLATFORM coupon, whose threshold and discount are
// measured on what the shop coupons leave (see Discount).
func (s *Service) Best(ctx context.Context, actor coupon.Actor, o Order) (*Combination, error) {
	if err := o.Validate(); err != nil {
		return nil, underField(err, "order")
	}
	quotes, err := s.quotes(ctx, actor.UserID, &o)
	if err != nil {
		return nil, err
	}
	c := BestOf(quotes, &o)
	return &c, nil
}

// BestOf is Best over quotes (Applicable's, sorted best first). It is exact: a bigger shop
// discount can cost more than it gives when it takes the order under a platform coupon's
// threshold, so every total of one shop coupon per shop (distinct discounts only, each by the
// coupon that expires first) is weighed with every platform template's coupon; maxStates bounds
// the totals of carts of many shops. Ties keep the fewer, earlier-expiring coupons.
func BestOf(quotes []Quote, o *Order) Combination {
	shops := map[int64][]*Quote{} // shop → its options, distinct discounts, best first
	var platform []*Quote         // one per template, best first
	seenValue := map[int64]map[string]bool{}
	seenTemplate := map[int64]bool{}
	for i := range quotes {
		q := &quotes[i]
		if !q.Applicable {
			continue
		}
		if q.Template.Source == coupontemplate.SourcePLATFORM {
			if !seenTemplate[q.Template.ID] {
				seenTemplate[q.Template.ID] = true
				platform = append(platform, q)
			}
			continue
		}
		shop := q.Template.ShopNumber
		if seenValue[shop] == nil {
			seenValue[shop] = map[string]bool{}
		}
		if v := q.Discount.String(); !seenValue[shop][v] {
			seenValue[shop][v] = true
			shops[shop] = append(shops[shop], q)
		}
	}
	// states: total shop discount in cents → the shop coupons giving it.
	states := map[int64][]*Quote{0: nil}
	for _, shop := range slices.Sorted(maps.Keys(shops)) {
		next := make(map[int64][]*Quote, len(states)*(len(shops[shop])+1))
		for _, total := range slices.Sorted(maps.Keys(states)) {
			chosen := states[total]
			if _, ok := next[total]; !ok {
				next[total] = chosen
			}
			for _, q := range shops[shop] {
				t := total + cents(q.Discount)
				if _, ok := next[t]; !ok {
					next[t] = append(slices.Clip(chosen), q)
				}
			}
		}
		if len(next) > maxStates {
			keep := slices.Sorted(maps.Keys(next))
			for _, t := range keep[:len(keep)-maxStates] {
				delete(next, t)
			}
		}
		states = next
	}
	best := Combination{Discount: decimal.Zero}
	var bestPlatform *Quote
	var bestShops []*Quote
	bestCount := 0
	for _, total := range slices.Sorted(maps.Keys(states)) {
		taken := decimal.New(total, -2)
		consider := func(p *Quote, d decimal.Decimal) {
			sum, n := taken.Add(d), len(states[total])
			if p != nil {
				n++
			}
			if c := sum.Cmp(best.Discount); c > 0 || (c == 0 && sum.IsPositive() && n < bestCount) {
				best.Discount, bestShops, bestPlatform, bestCount = sum, states[total], nil, n
				if p != nil {
					pq := *p
					pq.Discount = d
					bestPlatform = &pq
				}
			}
		}
		consider(nil, decimal.Zero)
		for _, p := range platform {
			if d, err := Discount(p.Template, o, taken); err == nil {
				consider(p, d)
			}
		}
	}
	for _, q := range bestShops {
		best.Quotes = append(best.Quotes, *q)
	}
	slices.SortFunc(best.Quotes, func(a, b Quote) int { return cmp.Compare(a.Template.ShopNumber, b.Template.ShopNumber) })
	if bestPlatform != nil {
		best.Quotes = append(best.Quotes, *bestPlatform)
	}
	if best.Quotes == nil {
		best.Quotes = []Quote{}
	}
	best.Payable = o.Amount.Sub(best.Discount)
	return best
}
