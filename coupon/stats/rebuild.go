package stats

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"coupond/coupon/keys"
	"coupond/ent/migrate"
	"coupond/ent/usercoupon"
	"coupond/idgen"

	"github.com/shopspring/decimal"
)

// statuses are the values of user_coupon.status (the schema's enum, the archive's too) as query
// arguments, and statusMarks their placeholders: the issued count names every status so that
// MariaDB reads (template_id, status, updated_at) as one range per status.
var statuses, statusMarks = func() ([]any, string) {
	col, _ := migrate.UserCouponTable.Column(usercoupon.FieldStatus)
	args := make([]any, len(col.Enums))
	for i, v := range col.Enums {
		args[i] = v
	}
	return args, strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ")
}()

// countsFromDB recomputes one template's counters of day d from MySQL: coupons issued (by origin,
// by created_at) and expired (by updated_at) in user_coupon and user_coupon_archive, in one
// statement each so a row the archive moves meanwhile is seen once (one snapshot); the payments
// made on d (paid_at) in coupon_settlement, those refunded since (refunded_at set) apart from
// those that stand. Each is a range of a (template_id, …) index. The expired coupons and the
// payments are ranges of the day: their cost grows with that day's events of the template. The issued coupons have no index of their
// own: a row's updated_at is never before its created_at (the insert sets both to the same time,
// issue.Create, and every later change to its now), so the coupons created on d are among those
// with updated_at from d's start on, a range of
// (template_id, status, updated_at) for each status, filtered on created_at (forced: when those
// coupons are most of the table MariaDB would rather scan it). Their cost grows with the
// template's coupons issued or changed from d's start on: for a past day, also those of the days
// after it.
func (s *Service) countsFromDB(ctx context.Context, templateID int64, d day) (Counts, error) {
	var c Counts
	from, to := d.start.UTC(), d.end.UTC()
	issued := func(table, index string) string {
		return "SELECT source FROM " + table + " FORCE INDEX (" + index + ") WHERE template_id = ? AND status IN (" +
			statusMarks + ") AND updated_at >= ? AND created_at >= ? AND created_at < ?"
	}
	args := append(append([]any{templateID}, statuses...), from, from, to)
	rows, err := s.db.QueryContext(ctx, "SELECT source, COUNT(*) FROM ("+
		issued("user_coupon", "usercoupon_template_id_status_updated_at")+" UNION ALL "+
		issued("user_coupon_archive", "usercouponarchive_template_id_status_updated_at")+") issued GROUP BY source",
		append(args, args...)...)
	if err != nil {
		return c, fmt.Errorf("stats: issued of template %d on %s: %w", templateID, d.key, err)
	}
	defer rows.Close()
	for rows.Next() {
		var source string
		var n int
		if err := rows.Scan(&source, &n); err != nil {
			return c, err
		}
		if source == "DISTRIBUTION" {
			c.IssuedDistribution += n
		} else {
			c.IssuedClaim += n
		}
	}
	if err := rows.Err(); err != nil {
		return c, err
	}
	err = s.queryRow(ctx, []any{&c.Expired}, `
SELECT (SELECT COUNT(*) FROM user_coupon WHERE template_id = ? AND status = 'EXPIRED' AND updated_at >= ? AND updated_at < ?)
     + (SELECT COUNT(*) FROM user_coupon_archive WHERE template_id = ? AND status = 'EXPIRED' AND updated_at >= ? AND updated_at < ?)`,
		templateID, from, to, templateID, from, to)
	if err != nil {
		return c, fmt.Errorf("stats: expired of template %d on %s: %w", templateID, d.key, err)
	}
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
	c, err := s.countsFromDB(ctx, templateID, d)
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
