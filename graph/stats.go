package graph

import (
	"strconv"

	"coupond/coupon"
	"coupond/coupon/stats"
	"coupond/graph/model"
)

// templateStats maps a template's stats.
func templateStats(t *stats.TemplateStats, err error) (*model.TemplateStats, error) {
	if err != nil {
		return nil, err
	}
	out := &model.TemplateStats{
		TemplateID: strconv.FormatInt(t.TemplateID, 10), TemplateName: t.TemplateName,
		TotalStock: t.TotalStock, RemainingStock: t.RemainingStock, IssuedCount: t.IssuedCount(),
		IssuedByOrigin: &model.IssuedByOrigin{Claim: t.Total.IssuedClaim, Distribution: t.Total.IssuedDistribution},
		LockedCount:    t.LockedCount, UsedCount: t.UsedCount(), ExpiredCount: t.Total.Expired,
		RefundedCount: t.Total.Refunded, DiscountTotal: t.DiscountTotal(), RedeemRate: t.RedeemRate(),
		Daily: dailyStats(t.Daily),
	}
	return out, nil
}

// dailyStats maps a daily series.
func dailyStats(days []stats.Day) []*model.DailyStat {
	out := make([]*model.DailyStat, len(days))
	for i, d := range days {
		out[i] = &model.DailyStat{Date: d.Date, Issued: d.Issued(), Used: d.Used, Discount: d.Discount(),
			Refunded: d.Refunded, Expired: d.Expired}
	}
	return out
}

// shopStats maps a shop's stats.
func shopStats(s *stats.ShopStats, err error) (*model.ShopStats, error) {
	if err != nil {
		return nil, err
	}
	out := &model.ShopStats{ShopNumber: strconv.FormatInt(s.ShopNumber, 10), Templates: s.Templates,
		IssuedCount: s.Total.Issued(), UsedCount: s.Total.Used, DiscountTotal: s.Total.Discount(),
		LockedCount: s.LockedCount, ExpiredCount: s.Total.Expired, RefundedCount: s.Total.Refunded,
		Daily: dailyStats(s.Daily)}
	for _, list := range []struct {
		in  []*stats.TemplateStats
		out *[]*model.TemplateStats
	}{{s.TopByIssued, &out.TopByIssued}, {s.TopByUsed, &out.TopByUsed}} {
		*list.out = make([]*model.TemplateStats, len(list.in))
		for i, t := range list.in {
			(*list.out)[i], _ = templateStats(t, nil)
		}
	}
	return out, nil
}

// shopArg reads the optional shopNumber argument.
func shopArg(s *string) (*int64, error) {
	if s == nil {
		return nil, nil
	}
	n, err := strconv.ParseInt(*s, 10, 64)
	if err != nil || n <= 0 {
		return nil, &coupon.Error{Code: CodeBadUserInput, Field: []string{"shopNumber"}, Message: "shopNumber must be a positive number"}
	}
	return &n, nil
}
