package stats

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"time"

	"coupond/coupon/keys"
	"coupond/coupon/ledger"
	"coupond/idgen"

	"github.com/shopspring/decimal"
)

// countsFromDB recomputes one template's counters of day d from MySQL: coupons issued (by origin,
// by created_at) and expired (by the transition's time) from the template's ledgers (coupon/ledger:
// the sum of the day's quarter-hour buckets, written by the transactions that issue and expire
// coupons, so the archive moving coupons changes nothing and no coupon is read); the payments made
// on d (paid_at) in coupon_settlement, those refunded since (refunded_at set) apart from those that
// stand, a range of its (template_id, paid_at) index. Each read's cost grows with the day's buckets
// or payments of the template, never with its coupons.
func (s *Service) countsFromDB(ctx context.Context, templateID, shop int64, d day) (Counts, error) {
	var c Counts
	from, to := d.start.UTC(), d.end.UTC()
	l, err := ledger.Count(ctx, s.db, shop, templateID, from, to)
	if err != nil {
		return c, fmt.Errorf("stats: template %d on %s: %w", templateID, d.key, err)
	}
	c.IssuedClaim, c.IssuedDistribution, c.Expired = l.IssuedClaim, l.IssuedDistribution, l.Expired
	var standing, refunded decimal.Decimal
	err = s.queryRow(ctx, []any{&c.Used, &standing, &c.Refunded, &refunded}, `
SELECT COUNT(*) - COUNT(refunded_at), COALESCE(SUM(IF(refunded_at IS NULL, discount_amount, 0)), 0),
       COUNT(refunded_at), COALESCE(SUM(IF(refunded_at IS NULL, 0, discount_amount)), 0)
FROM coupon_settlement WHERE template_id = ? AND paid_at >= ? AND paid_at < ?`, templateID, from, to)
	if err != nil {
		return c, fmt.Errorf("stats: payments of template %d on %s: %w", templateID, d.key, err)
	}
	c.DiscountCents, c.RefundedDiscountCents = standing.Shift(2).IntPart(), refunded.Shift(2).IntPart()
	return c, nil
}

// queryRow runs a query of one row and scans it into dest.
func (s *Service) queryRow(ctx context.Context, dest []any, query string, args ...any) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		return cmp.Or(rows.Err(), sql.ErrNoRows)
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

// writeRow upserts the template's row of day d with absolute values. seal makes the row final
// (sealed); without it a sealed row is left as it is (a late roll-up never overwrites MySQL's
// final count).
func (s *Service) writeRow(ctx context.Context, templateID, shop int64, d day, c Counts, seal bool) error {
	set := func(col string) string {
		if seal {
			return col + " = VALUES(" + col + ")"
		}
		return col + " = IF(sealed, " + col + ", VALUES(" + col + "))"
	}
	update := ""
	for i, col := range []string{"issued", "issued_distribution", "used", "discount_total", "refunded", "refunded_discount", "expired", "updated_at"} {
		if i > 0 {
			update += ", "
		}
		update += set(col)
	}
	if seal {
		update += ", sealed = 1"
	}
	now := s.now().UTC()
	_, err := s.db.ExecContext(ctx, `INSERT INTO template_daily_stats
(id, template_id, shop_number, day, issued, issued_distribution, used, discount_total, refunded, refunded_discount, expired, sealed, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE `+update,
		idgen.Next(), templateID, shop, d.key, c.Issued(), c.IssuedDistribution, c.Used, decimal.New(c.DiscountCents, -2),
		c.Refunded, decimal.New(c.RefundedDiscountCents, -2), c.Expired, seal, now, now)
	if err != nil {
		return fmt.Errorf("stats: write template %d day %s: %w", templateID, d.key, err)
	}
	return nil
}

// closed reports whether d ended SealAfter ago or more (its counters cannot move any more).
func (s *Service) closed(d day) bool { return !d.end.Add(s.cfg.SealAfter).After(s.now()) }

// rebuildDay recomputes the template's day d from MySQL: a closed day is sealed (its realtime hash
// dropped); an open one gets the figures in its row and, as absolute values, in its Redis hash.
func (s *Service) rebuildDay(ctx context.Context, templateID, shop int64, d day) error {
	c, err := s.countsFromDB(ctx, templateID, shop, d)
	if err != nil {
		return err
	}
	if s.closed(d) {
		if err := s.writeRow(ctx, templateID, shop, d, c, true); err != nil {
			return err
		}
		return s.rdb.Del(ctx, keys.DailyStats(templateID, d.key)).Err()
	}
	if err := s.rdb.HSet(ctx, keys.DailyStats(templateID, d.key), hashOfCounts(c)).Err(); err != nil {
		return fmt.Errorf("stats: reset realtime counters of template %d day %s: %w", templateID, d.key, err)
	}
	return s.writeRow(ctx, templateID, shop, d, c, false)
}

// Rebuild recomputes the template's days that [from, to) touches (see span; from defaults to the
// template's creation) from MySQL, as rebuildDay does each; it is the on-demand repair after Redis
// lost counters, and safe to rerun. It returns how many days it rebuilt.
func (s *Service) Rebuild(ctx context.Context, templateID int64, from, to *time.Time) (int, error) {
	tpl, err := s.db.CouponTemplate.Get(ctx, templateID)
	if err != nil {
		return 0, fmt.Errorf("stats: rebuild template %d: %w", templateID, err)
	}
	days, err := s.span(from, to, tpl.CreatedAt)
	if err != nil {
		return 0, err
	}
	for i, d := range days {
		if !d.start.Before(s.now()) {
			return i, nil
		}
		if err := s.rebuildDay(ctx, templateID, tpl.ShopNumber, d); err != nil {
			return i, err
		}
	}
	return len(days), nil
}
