package stats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"coupond/coupon/keys"
	"coupond/ent"

	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"
)

// shopSums is a shop's numbers over a span of days: by day and by template, the same counts
// summed two ways (each sums to the same totals).
type shopSums struct {
	templates  []int64 // the shop's templates, by id
	days       []day
	byDay      []Counts         // one per day of days
	byTemplate map[int64]Counts // over days
	locked     int              // coupons LOCKED now
}

// sumColumns are the counters of template_daily_stats summed, in the order scanSums reads them.
const sumColumns = `SUM(issued), SUM(issued_distribution), SUM(used), SUM(discount_total), SUM(refunded),
SUM(refunded_discount), SUM(expired)`

// shopRows is the shop's rows of template_daily_stats over a span of days (template_id IN a
// subquery: no id list is sent). A shop's templates are its SHOP-source ones: a PLATFORM template
// belongs to no shop, even an old row filed under one. The rows' own shop_number (their
// template's) is named too: it is the template keyspace's shard key, so on Vitess the read stays on
// the shop's shard.
const shopRows = ` FROM template_daily_stats
WHERE shop_number = ? AND template_id IN (SELECT id FROM coupon_template WHERE shop_number = ? AND source = 'SHOP') AND day >= ? AND day <= ?`

// shopSums reads the shop's templates and sums their rows of the days [from, to) touches (see span;
// from defaults to the first template's creation) by day and by template, in MySQL and in one
// snapshot (a read-only repeatable-read transaction). Then each open day's realtime hash replaces
// its row as load does: the difference of each (template, open day) hash from its row is added
// to both sums. MySQL's answer is one row per day and one per template; Redis is read once per
// template and open day (at most two days). Nothing per (template, day) of a closed day is held.
func (s *Service) shopSums(ctx context.Context, shop int64, from, to *time.Time) (*shopSums, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("stats: shop %d: %w", shop, err)
	}
	defer tx.Rollback()
	out := &shopSums{byTemplate: map[int64]Counts{}}
	since := s.now()
	err = query(ctx, tx, func(r *sql.Rows) error {
		var id int64
		var created time.Time
		if err := r.Scan(&id, &created); err != nil {
			return err
		}
		out.templates = append(out.templates, id)
		if created.Before(since) {
			since = created
		}
		return nil
	}, `SELECT id, created_at FROM coupon_template WHERE shop_number = ? AND source = 'SHOP' ORDER BY id`, shop)
	if err != nil {
		return nil, fmt.Errorf("stats: templates of shop %d: %w", shop, err)
	}
	if out.days, err = s.span(from, to, since); err != nil {
		return nil, err
	}
	out.byDay = make([]Counts, len(out.days))
	index := make(map[string]int, len(out.days))
	for i, d := range out.days {
		index[d.key] = i
	}
	span := []any{shop, shop, dayDate(out.days[0]), dayDate(out.days[len(out.days)-1])}
	err = query(ctx, tx, func(r *sql.Rows) error {
		var key string
		c, err := scanSums(r, []any{&key})
		if i, ok := index[key]; ok && err == nil {
			out.byDay[i] = c
		}
		return err
	}, `SELECT CAST(day AS CHAR), `+sumColumns+shopRows+` GROUP BY day`, span...)
	if err != nil {
		return nil, fmt.Errorf("stats: days of shop %d: %w", shop, err)
	}
	err = query(ctx, tx, func(r *sql.Rows) error {
		var id int64
		c, err := scanSums(r, []any{&id})
		out.byTemplate[id] = c
		return err
	}, `SELECT template_id, `+sumColumns+shopRows+` GROUP BY template_id`, span...)
	if err != nil {
		return nil, fmt.Errorf("stats: templates' sums of shop %d: %w", shop, err)
	}
	live := s.liveDays(out.days)
	stored := map[cell]Counts{}
	sealed := map[cell]bool{}
	if len(live) > 0 {
		err = query(ctx, tx, func(r *sql.Rows) error {
			var k cell
			var seal bool
			c, err := scanSums(r, []any{&k.tpl, &k.day}, &seal)
			stored[k], sealed[k] = c, seal
			return err
		}, `SELECT template_id, CAST(day AS CHAR), issued, issued_distribution, used, discount_total, refunded,
refunded_discount, expired, sealed`+shopRows, shop, shop, dayDate(live[0]), dayDate(live[len(live)-1]))
		if err != nil {
			return nil, fmt.Errorf("stats: open days of shop %d: %w", shop, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("stats: shop %d: %w", shop, err)
	}
	return out, s.addRealtime(ctx, out, live, index, stored, sealed)
}

// cell is one template's day.
type cell struct {
	tpl int64
	day string
}

// addRealtime adds to sums the locks held now and, for each (template, open day) with a realtime
// hash and no sealed row, the hash less the row (stored) the sums counted.
func (s *Service) addRealtime(ctx context.Context, sums *shopSums, live []day, index map[string]int,
	stored map[cell]Counts, sealed map[cell]bool) error {
	if len(sums.templates) == 0 {
		return nil
	}
	pipe := s.rdb.Pipeline()
	locked := make([]*redis.StringCmd, len(sums.templates))
	hashes := map[cell]*redis.MapStringStringCmd{}
	for i, id := range sums.templates {
		locked[i] = pipe.HGet(ctx, keys.StatsLive(id), keys.StatLocked)
		for _, d := range live {
			if k := (cell{id, d.key}); !sealed[k] {
				hashes[k] = pipe.HGetAll(ctx, keys.DailyStats(id, d.key))
			}
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("stats: realtime counters: %w", err)
	}
	for _, l := range locked {
		if n, err := l.Int(); err == nil {
			sums.locked += max(0, n)
		}
	}
	for k, h := range hashes {
		if len(h.Val()) == 0 {
			continue
		}
		delta := countsOfHash(h.Val()).minus(stored[k])
		sums.byDay[index[k.day]].add(delta)
		t := sums.byTemplate[k.tpl]
		t.add(delta)
		sums.byTemplate[k.tpl] = t
	}
	return nil
}

// query runs a query in tx and calls each for each row.
func query(ctx context.Context, tx *ent.Tx, each func(*sql.Rows) error, q string, args ...any) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// scanSums scans a row of the lead columns, then the seven counters of sumColumns (or a row's own
// counter columns in that order), then the tail columns.
func scanSums(r *sql.Rows, lead []any, tail ...any) (Counts, error) {
	var issued, dist, used, refunded, expired int64
	var discount, refundedDiscount decimal.Decimal
	dest := append(slices.Clone(lead), &issued, &dist, &used, &discount, &refunded, &refundedDiscount, &expired)
	if err := r.Scan(append(dest, tail...)...); err != nil {
		return Counts{}, err
	}
	return Counts{IssuedClaim: int(issued - dist), IssuedDistribution: int(dist), Used: int(used),
		DiscountCents: discount.Shift(2).IntPart(), Refunded: int(refunded),
		RefundedDiscountCents: refundedDiscount.Shift(2).IntPart(), Expired: int(expired)}, nil
}
