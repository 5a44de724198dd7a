package stats

import (
	"strconv"

	"coupond/coupon/keys"
	"coupond/ent"

	"github.com/shopspring/decimal"
)

// Counts are the counters of one stats day (or their sum over days). Payments are net: a payment
// is counted on the day it was made, in Used while it stands and in Refunded once it is refunded
// (whenever the refund comes), never in both; Used + Refunded is the day's payments.
type Counts struct {
	IssuedClaim, IssuedDistribution int
	Used                            int   // payments with a coupon made that day and not refunded
	DiscountCents                   int64 // their discount
	Refunded                        int   // payments with a coupon made that day and refunded since
	RefundedDiscountCents           int64 // their discount
	Expired                         int
}

func (c *Counts) add(o Counts) {
	c.IssuedClaim += o.IssuedClaim
	c.IssuedDistribution += o.IssuedDistribution
	c.Used += o.Used
	c.DiscountCents += o.DiscountCents
	c.Refunded += o.Refunded
	c.RefundedDiscountCents += o.RefundedDiscountCents
	c.Expired += o.Expired
}

// minus is c less o, counter by counter.
func (c Counts) minus(o Counts) Counts {
	return Counts{IssuedClaim: c.IssuedClaim - o.IssuedClaim, IssuedDistribution: c.IssuedDistribution - o.IssuedDistribution,
		Used: c.Used - o.Used, DiscountCents: c.DiscountCents - o.DiscountCents, Refunded: c.Refunded - o.Refunded,
		RefundedDiscountCents: c.RefundedDiscountCents - o.RefundedDiscountCents, Expired: c.Expired - o.Expired}
}

// Issued is every coupon issued, by claim and by distribution.
func (c Counts) Issued() int { return c.IssuedClaim + c.IssuedDistribution }

// Discount is the discount of the payments that stand (money, 2 decimals).
func (c Counts) Discount() decimal.Decimal { return decimal.New(c.DiscountCents, -2) }

// countsOfHash reads a keys.DailyStats hash.
func countsOfHash(h map[string]string) Counts {
	n := func(f string) int64 { v, _ := strconv.ParseInt(h[f], 10, 64); return v }
	return Counts{
		IssuedClaim: int(n(keys.StatIssuedClaim)), IssuedDistribution: int(n(keys.StatIssuedDistribution)),
		Used: int(n(keys.StatUsed)), DiscountCents: n(keys.StatDiscountCents),
		Refunded: int(n(keys.StatRefunded)), RefundedDiscountCents: n(keys.StatRefundedDiscountCents),
		Expired: int(n(keys.StatExpired)),
	}
}

// hashOfCounts is the keys.DailyStats hash of c (every field, for an absolute HSET).
func hashOfCounts(c Counts) map[string]any {
	return map[string]any{
		keys.StatIssuedClaim: c.IssuedClaim, keys.StatIssuedDistribution: c.IssuedDistribution,
		keys.StatUsed: c.Used, keys.StatDiscountCents: c.DiscountCents,
		keys.StatRefunded: c.Refunded, keys.StatRefundedDiscountCents: c.RefundedDiscountCents,
		keys.StatExpired: c.Expired,
	}
}

// countsOfRow reads a template_daily_stats row.
func countsOfRow(r *ent.TemplateDailyStats) Counts {
	return Counts{
		IssuedClaim: r.Issued - r.IssuedDistribution, IssuedDistribution: r.IssuedDistribution,
		Used: r.Used, DiscountCents: r.DiscountTotal.Shift(2).IntPart(),
		Refunded: r.Refunded, RefundedDiscountCents: r.RefundedDiscount.Shift(2).IntPart(),
		Expired: r.Expired,
	}
}

// Day is one day of a template's series.
type Day struct {
	Date string // YYYY-MM-DD in the stats zone
	Counts
}

// TemplateStats is one template's funnel over a span of days, and its live figures.
type TemplateStats struct {
	TemplateID     int64
	TemplateName   string
	ShopNumber     int64
	TotalStock     int
	RemainingStock int // live: the cached stock when the template is cached, else MySQL's
	LockedCount    int // coupons LOCKED now
	Total          Counts
	Daily          []Day
}

// trim keeps the last n days of the series and makes Total their sum.
func (t *TemplateStats) trim(n int) {
	t.Daily = t.Daily[len(t.Daily)-n:]
	t.Total = Counts{}
	for _, d := range t.Daily {
		t.Total.add(d.Counts)
	}
}

// IssuedCount is the coupons issued over the span.
func (t *TemplateStats) IssuedCount() int { return t.Total.Issued() }

// UsedCount is the span's payments with a coupon that were not refunded.
func (t *TemplateStats) UsedCount() int { return t.Total.Used }

// DiscountTotal is the discount of those payments.
func (t *TemplateStats) DiscountTotal() decimal.Decimal { return t.Total.Discount() }

// RedeemRate is UsedCount ÷ IssuedCount (0 when nothing was issued).
func (t *TemplateStats) RedeemRate() float64 {
	if t.IssuedCount() == 0 {
		return 0
	}
	return float64(t.UsedCount()) / float64(t.IssuedCount())
}

// ShopStats is the totals over a shop's templates over a span, its daily series (Total is the
// sum of Daily), and its top templates.
type ShopStats struct {
	ShopNumber  int64
	Templates   int
	LockedCount int // coupons LOCKED now, over the shop's templates
	Total       Counts
	Daily       []Day
	TopByIssued []*TemplateStats // at most 10, most issued first
	TopByUsed   []*TemplateStats // at most 10, most used first
}
