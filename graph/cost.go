package graph

import (
	"math"
	"time"

	"coupond/ent/usercoupon"
	"coupond/graph/generated"
	"coupond/graph/model"
)

// The cost model (operationLimits refuses an operation whose cost exceeds the complexity limit,
// 500 by default). A field resolved from what its parent already loaded costs 1 plus its
// selection (gqlgen's default); the fields below do more, and weigh what they do, so that the
// limit bounds the work of one request and 100 aliases of any of them are refused:
const (
	// costQuery is one SQL round trip: a connection's page.
	costQuery = 5
	// costShopStats: the shop's daily rows over up to COUPON_STATS_MAX_DAYS days summed in MySQL
	// by day and by template, the open days read from every template's realtime hash, two top-10
	// rankings each with its daily series. At most four fit under the limit (three with the rankings).
	costShopStats = 100
	// costTemplateStats: one template's daily rows over the range and its realtime hash.
	costTemplateStats = 20
	// costBestCombination: every usable coupon of the caller quoted against the order (up to 500
	// lines) and the best combination searched among them.
	costBestCombination = 100
	// costApplicableCoupons: every coupon of the caller quoted against the order.
	costApplicableCoupons = 25
	// costReconciliation: counts over the template's coupons and outbox, and its Redis stock.
	costReconciliation = 50
	// rowsPerSelection is how many rows of a page one evaluation of the node selection stands
	// for: a node's fields are read from its row, so ten of them cost about one query.
	rowsPerSelection = 10
)

// complexityRoot is the cost model as gqlgen's per-field complexity functions.
func complexityRoot() generated.ComplexityRoot {
	var c generated.ComplexityRoot
	c.Query.ShopStats = func(child int, _ *string, _, _ *time.Time) int { return weigh(costShopStats, child) }
	c.Query.TemplateStats = func(child int, _ string, _, _ *time.Time) int { return weigh(costTemplateStats, child) }
	c.Query.BestCouponCombination = func(child int, _ model.OrderInput) int { return weigh(costBestCombination, child) }
	c.Query.ApplicableCoupons = func(child int, _ model.OrderInput) int { return weigh(costApplicableCoupons, child) }
	c.Query.Reconciliation = func(child int, _ string) int { return weigh(costReconciliation, child) }
	c.Query.CouponTemplates = func(child int, first *int, _ *string, last *int, _ *string, _ *model.CouponTemplateFilter) int {
		return connectionCost(child, first, last)
	}
	c.Query.MyCoupons = func(child int, _ *usercoupon.Status, first *int, _ *string, last *int, _ *string, _ *bool) int {
		return connectionCost(child, first, last)
	}
	c.Query.CouponTasks = func(child int, _ *string, first *int, _ *string, last *int, _ *string, _ *model.CouponTaskFilter) int {
		return connectionCost(child, first, last)
	}
	c.Query.MyReminders = func(child int, first *int, _ *string) int { return connectionCost(child, first, nil) }
	c.Query.TemplateLog = func(child int, _ string, first *int, _ *string) int { return connectionCost(child, first, nil) }
	c.CouponTemplate.Stats = func(child int, _, _ *time.Time) int { return weigh(costTemplateStats, child) }
	c.CouponTask.Failures = func(child int, first *int, _ *string) int { return connectionCost(child, first, nil) }
	return c
}

// connectionCost is one query plus the node selection once per rowsPerSelection rows of the page
// asked for (first or last; 20 without either; sizes outside 1…100 are refused by pageArgs, and
// weigh here as the nearest size served).
func connectionCost(child int, first, last *int) int {
	n := defaultPageSize
	switch {
	case first != nil:
		n = *first
	case last != nil:
		n = *last
	}
	n = min(max(n, 1), maxPageSize)
	return weigh(costQuery, saturatingMul((n+rowsPerSelection-1)/rowsPerSelection, child))
}

// weigh is cost plus the selection's cost, saturating instead of overflowing.
func weigh(cost, child int) int {
	if child > math.MaxInt-cost {
		return math.MaxInt
	}
	return cost + child
}

// saturatingMul is a×b for non-negative a and b, math.MaxInt when that overflows.
func saturatingMul(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}
