package stats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/templatedailystats"

	"github.com/redis/go-redis/v9"
)

// topN is how many templates shopStats ranks.
const topN = 10

// errNotOwner answers a merchant asking for another shop's totals.
var errNotOwner = coupon.Errorf(coupon.CodeNotOwner, "not your shop's statistics")

// TemplateStats is the template's funnel over the stats days [from, to) touches (see span) for a
// merchant of its shop or the platform; anyone else gets what a missing id gets
// (coupon.ErrNotFound), so ids do not reveal other shops' templates.
func (s *Service) TemplateStats(ctx context.Context, actor coupon.Actor, templateID int64, from, to *time.Time) (*TemplateStats, error) {
	out, errs := s.Many(ctx, actor, []int64{templateID}, from, to)
	switch {
	case errs[0] != nil:
		return nil, errs[0]
	case out[0] == nil:
		return nil, coupon.ErrNotFound
	}
	return out[0], nil
}

// Many is TemplateStats of each of ids over the same [from, to), read together: one query of the
// templates, then load's one query and pipelines over the longest of their spans (each template's
// span is a suffix of it: they share their end), so the cost does not multiply with the ids. For
// a missing id, or a template the actor does not manage, out[i] and errs[i] are both nil; errs[i]
// is the reason a template's span is refused (as TemplateStats would answer) or the read's error.
func (s *Service) Many(ctx context.Context, actor coupon.Actor, ids []int64, from, to *time.Time) (out []*TemplateStats, errs []error) {
	out, errs = make([]*TemplateStats, len(ids)), make([]error, len(ids))
	fail := func(err error) ([]*TemplateStats, []error) {
		for i := range errs {
			errs[i] = err
		}
		return out, errs
	}
	rows, err := s.db.CouponTemplate.Query().Where(coupontemplate.IDIn(ids...)).All(ctx)
	if err != nil {
		return fail(fmt.Errorf("stats: templates: %w", err))
	}
	byID := make(map[int64]*ent.CouponTemplate, len(rows))
	for _, r := range rows {
		if actor.ManagesTemplate(r.Source, r.ShopNumber) {
			byID[r.ID] = r
		}
	}
	spans := make(map[int64][]day, len(byID))
	var longest []day
	var visible []*ent.CouponTemplate
	for i, id := range ids {
		r := byID[id]
		if r == nil {
			continue
		}
		if _, seen := spans[id]; !seen {
			days, err := s.span(from, to, r.CreatedAt)
			if err != nil {
				errs[i] = err
				continue
			}
			spans[id] = days
			visible = append(visible, r)
			if len(days) > len(longest) {
				longest = days
			}
		}
	}
	if len(visible) == 0 {
		return out, errs
	}
	loaded, err := s.load(ctx, visible, longest)
	if err != nil {
		return fail(err)
	}
	stats := make(map[int64]*TemplateStats, len(loaded))
	for _, t := range loaded {
		t.trim(len(spans[t.TemplateID]))
		stats[t.TemplateID] = t
	}
	for i, id := range ids {
		if errs[i] == nil {
			out[i] = stats[id]
		}
	}
	return out, errs
}

// ShopStats is the totals and the daily series over the shop's templates over the days [from, to)
// touches, and its top templates by issued and by used. A merchant may omit shop (its own) and
// may ask for no other; the platform must name one. The days are summed by MySQL (shopSums): its
// memory grows with the days and with the shop's templates, never with their product.
func (s *Service) ShopStats(ctx context.Context, actor coupon.Actor, shop *int64, from, to *time.Time) (*ShopStats, error) {
	switch {
	case actor.Role == coupon.RoleMerchant && shop == nil:
		shop = &actor.Shop
	case actor.Role == coupon.RolePlatform && shop == nil:
		return nil, coupon.FieldError("shopNumber", "name the shop")
	}
	if actor.Role == coupon.RoleUser || !actor.CanSeeShop(*shop) {
		return nil, errNotOwner
	}
	sums, err := s.shopSums(ctx, *shop, from, to)
	if err != nil {
		return nil, err
	}
	out := &ShopStats{ShopNumber: *shop, Templates: len(sums.templates), LockedCount: sums.locked,
		Daily: make([]Day, len(sums.days))}
	for i, d := range sums.days {
		out.Daily[i] = Day{Date: d.key, Counts: sums.byDay[i]}
		out.Total.add(sums.byDay[i])
	}
	byIssued := top(sums.templates, sums.byTemplate, func(c Counts) int { return c.Issued() })
	byUsed := top(sums.templates, sums.byTemplate, func(c Counts) int { return c.Used })
	ids := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(byIssued), byUsed...))))
	rows, err := s.db.CouponTemplate.Query().Where(coupontemplate.IDIn(ids...)).Order(coupontemplate.ByID()).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats: top templates of shop %d: %w", *shop, err)
	}
	all, err := s.load(ctx, rows, sums.days)
	if err != nil {
		return nil, err
	}
	loaded := make(map[int64]*TemplateStats, len(all))
	for _, t := range all {
		loaded[t.TemplateID] = t
	}
	for _, l := range []struct {
		ids []int64
		out *[]*TemplateStats
	}{{byIssued, &out.TopByIssued}, {byUsed, &out.TopByUsed}} {
		for _, id := range l.ids {
			if t := loaded[id]; t != nil { // nil: deleted meanwhile
				*l.out = append(*l.out, t)
			}
		}
	}
	return out, nil
}

// top is the topN of ids by score of their counts, highest first (ties: lower id first).
func top(ids []int64, counts map[int64]Counts, score func(Counts) int) []int64 {
	s := slices.Clone(ids)
	slices.SortStableFunc(s, func(a, b int64) int {
		return cmp.Or(cmp.Compare(score(counts[b]), score(counts[a])), cmp.Compare(a, b))
	})
	return s[:min(len(s), topN)]
}

// load computes the stats of templates over days in one query of template_daily_stats (rows of
// these templates and days, by the (template_id, day) key) and one Redis pipeline (each
// template's live counters, and its realtime hash of each day not sealed that can still move).
// Its cost grows with templates × days, never with their coupons.
func (s *Service) load(ctx context.Context, tpls []*ent.CouponTemplate, days []day) ([]*TemplateStats, error) {
	ids := make([]int64, len(tpls))
	for i, t := range tpls {
		ids[i] = t.ID
	}
	out := make([]*TemplateStats, len(tpls))
	if len(tpls) == 0 {
		return out, nil
	}
	rows, err := s.db.TemplateDailyStats.Query().
		Where(templatedailystats.TemplateIDIn(ids...),
			templatedailystats.DayGTE(dayDate(days[0])), templatedailystats.DayLTE(dayDate(days[len(days)-1]))).
		All(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats: daily rows: %w", err)
	}
	stored := make(map[cell]*ent.TemplateDailyStats, len(rows))
	for _, r := range rows {
		stored[cell{r.TemplateID, r.Day.Format(time.DateOnly)}] = r
	}
	live := s.liveDays(days)
	pipe := s.rdb.Pipeline()
	locked := make([]*redis.StringCmd, len(tpls))
	hashes := map[cell]*redis.MapStringStringCmd{}
	for i, t := range tpls {
		locked[i] = pipe.HGet(ctx, keys.StatsLive(t.ID), keys.StatLocked)
		for _, d := range live {
			if r := stored[cell{t.ID, d.key}]; r == nil || !r.Sealed {
				hashes[cell{t.ID, d.key}] = pipe.HGetAll(ctx, keys.DailyStats(t.ID, d.key))
			}
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("stats: realtime counters: %w", err)
	}
	cts := make([]*coupon.Template, len(tpls))
	for i, t := range tpls {
		cts[i] = coupon.TemplateFromRow(t)
	}
	if err := s.templates.LiveStocks(ctx, cts); err != nil {
		return nil, err
	}
	for i, t := range tpls {
		ts := &TemplateStats{TemplateID: t.ID, TemplateName: t.Name, ShopNumber: t.ShopNumber, TotalStock: t.TotalStock,
			RemainingStock: cts[i].Stock, Daily: make([]Day, len(days))}
		if n, err := locked[i].Int(); err == nil {
			ts.LockedCount = max(0, n)
		}
		for j, d := range days {
			var c Counts
			if h := hashes[cell{t.ID, d.key}]; h != nil && len(h.Val()) > 0 {
				c = countsOfHash(h.Val())
			} else if r := stored[cell{t.ID, d.key}]; r != nil {
				c = countsOfRow(r)
			}
			ts.Daily[j] = Day{Date: d.key, Counts: c}
			ts.Total.add(c)
		}
		out[i] = ts
	}
	return out, nil
}

// liveDays is those of days whose realtime counters can still be read: open days (not closed for
// SealAfter yet) that have begun.
func (s *Service) liveDays(days []day) []day {
	now := s.now()
	var out []day
	for _, d := range days {
		if d.start.Before(now) && d.end.Add(s.cfg.SealAfter).After(now) {
			out = append(out, d)
		}
	}
	return out
}

// dayDate is the DATE column value of d (its calendar date, as the driver writes a time: UTC).
func dayDate(d day) time.Time {
	t, _ := time.Parse(time.DateOnly, d.key)
	return t
}

// parseID is a decimal id.
func parseID(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}
