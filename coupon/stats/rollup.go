package stats

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"coupond/coupon/checkout"
	"coupond/coupon/keys"
	"coupond/ent/couponsettlement"
	"coupond/ent/coupontemplate"
	"coupond/ent/templatedailystats"

	"github.com/redis/go-redis/v9"
)

// sealBack is how many closed days the roll-up looks at for templates touched since (late events,
// replays) and rows not sealed yet: the Counted markers' lifetime. Older days, up to MaxDays back,
// are looked at only when their touched set has members (a refund of an old payment moves its
// day).
const sealBack = 8

// RollUpResult is what one roll-up did.
type RollUpResult struct {
	Recovered bool // Redis had lost its data: locks recounted, open days rebuilt
	Copied    int  // (template, open day) rows copied from Redis
	Sealed    int  // (template, closed day) rows recomputed from MySQL and sealed
}

// RollUp is the periodic job. After a Redis data loss (the sentinel missing while rows exist:
// recover) it copies the realtime counters
// of every template touched on an open day into its row (absolute values: rerun-safe), then seals
// each closed day of the last sealBack days that a template was touched on since its last seal,
// or whose row is not sealed yet (Rebuild's rule for a closed day), and each older day (up to
// MaxDays back) that a template was touched on since (sealOlder), and sets the sentinel.
func (s *Service) RollUp(ctx context.Context) (RollUpResult, error) {
	var res RollUpResult
	n, err := s.rdb.Exists(ctx, keys.StatsSentinel()).Result()
	if err != nil {
		return res, fmt.Errorf("stats: sentinel: %w", err)
	}
	if n == 0 {
		// Without any row no roll-up ever ran (a fresh deployment): nothing was lost.
		rolled, err := s.db.TemplateDailyStats.Query().Exist(ctx)
		if err != nil {
			return res, fmt.Errorf("stats: any row: %w", err)
		}
		if rolled {
			if err := s.recover(ctx); err != nil {
				return res, err
			}
			res.Recovered = true
		}
	}
	today := dayOf(s.now())
	for d, i := today, 0; i <= sealBack; d, i = dayOf(d.start.Add(-time.Nanosecond)), i+1 {
		touched, err := s.touched(ctx, d)
		if err != nil {
			return res, err
		}
		if !s.closed(d) {
			c, err := s.copyDay(ctx, d, touched)
			res.Copied += c
			if err != nil {
				return res, err
			}
			continue
		}
		c, err := s.sealDay(ctx, d, touched)
		res.Sealed += c
		if err != nil {
			return res, err
		}
	}
	c, err := s.sealOlder(ctx, today)
	res.Sealed += c
	if err != nil {
		return res, err
	}
	if err := s.rdb.Set(ctx, keys.StatsSentinel(), s.now().UTC().Format(time.RFC3339), 0).Err(); err != nil {
		return res, fmt.Errorf("stats: set sentinel: %w", err)
	}
	return res, nil
}

// sealOlder seals again the days from sealBack+1 to MaxDays days before today whose touched set
// has members (one pipeline of SCARDs finds them).
func (s *Service) sealOlder(ctx context.Context, today day) (int, error) {
	var days []day
	d := today
	for i := 0; i <= sealBack; i++ {
		d = dayOf(d.start.Add(-time.Nanosecond))
	}
	pipe := s.rdb.Pipeline()
	var cards []*redis.IntCmd
	for i := sealBack + 1; i < s.cfg.MaxDays; i, d = i+1, dayOf(d.start.Add(-time.Nanosecond)) {
		days = append(days, d)
		cards = append(cards, pipe.SCard(ctx, keys.StatsTouched(d.key)))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("stats: touched older days: %w", err)
	}
	sealed := 0
	for i, d := range days {
		if cards[i].Val() == 0 {
			continue
		}
		touched, err := s.touched(ctx, d)
		if err != nil {
			return sealed, err
		}
		c, err := s.sealDay(ctx, d, touched)
		sealed += c
		if err != nil {
			return sealed, err
		}
	}
	return sealed, nil
}

// touched is the templates of keys.StatsTouched(d), with their shops.
func (s *Service) touched(ctx context.Context, d day) (map[int64]int64, error) {
	members, err := s.rdb.SMembers(ctx, keys.StatsTouched(d.key)).Result()
	if err != nil {
		return nil, fmt.Errorf("stats: touched on %s: %w", d.key, err)
	}
	ids := make([]int64, 0, len(members))
	for _, m := range members {
		if id, ok := parseID(m); ok {
			ids = append(ids, id)
		}
	}
	return s.shops(ctx, ids)
}

// shops maps the ids of existing templates to their shops.
func (s *Service) shops(ctx context.Context, ids []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.CouponTemplate.Query().Where(coupontemplate.IDIn(ids...)).
		Select(coupontemplate.FieldID, coupontemplate.FieldShopNumber).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats: shops of templates: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = r.ShopNumber
	}
	return out, nil
}

// copyDay writes the realtime counters of open day d of each touched template into its row.
func (s *Service) copyDay(ctx context.Context, d day, touched map[int64]int64) (int, error) {
	copied := 0
	for id, shop := range touched {
		h, err := s.rdb.HGetAll(ctx, keys.DailyStats(id, d.key)).Result()
		if err != nil {
			return copied, fmt.Errorf("stats: realtime counters of template %d day %s: %w", id, d.key, err)
		}
		if len(h) == 0 {
			continue
		}
		if err := s.writeRow(ctx, id, shop, d, countsOfHash(h), false); err != nil {
			return copied, err
		}
		copied++
	}
	return copied, nil
}

// sealDay recomputes closed day d from MySQL for each touched template and each template whose
// row of d is not sealed, seals those rows and then takes the templates out of d's touched set
// (one touched again meanwhile is sealed again next time: its event committed before it touched).
func (s *Service) sealDay(ctx context.Context, d day, touched map[int64]int64) (int, error) {
	unsealed, err := s.db.TemplateDailyStats.Query().
		Where(templatedailystats.Day(dayDate(d)), templatedailystats.Sealed(false)).
		Select(templatedailystats.FieldTemplateID, templatedailystats.FieldShopNumber).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("stats: unsealed rows of %s: %w", d.key, err)
	}
	for _, r := range unsealed {
		touched[r.TemplateID] = r.ShopNumber
	}
	sealed := 0
	for id, shop := range touched {
		if err := s.rebuildDay(ctx, id, shop, d); err != nil {
			return sealed, err
		}
		if err := s.rdb.SRem(ctx, keys.StatsTouched(d.key), strconv.FormatInt(id, 10)).Err(); err != nil {
			return sealed, fmt.Errorf("stats: untouch %d on %s: %w", id, d.key, err)
		}
		sealed++
	}
	return sealed, nil
}

// recover follows a Redis data loss: it counts every lock held now in MySQL again (the per-lock
// markers make that exact while checkouts run: checkout.CountLock), and rebuilds every open day
// of each template that has a row of that day or was touched on it since.
func (s *Service) recover(ctx context.Context) error {
	var after int64
	for {
		rows, err := s.db.CouponSettlement.Query().
			Where(couponsettlement.StatusEQ(couponsettlement.StatusLOCKED), couponsettlement.IDGT(after)).
			Order(couponsettlement.ByID()).Limit(1000).All(ctx)
		if err != nil {
			return fmt.Errorf("stats: locks held: %w", err)
		}
		for _, r := range rows {
			if err := checkout.CountLock(ctx, s.rdb, r); err != nil {
				return err
			}
		}
		if len(rows) < 1000 {
			break
		}
		after = rows[len(rows)-1].ID
	}
	for d := dayOf(s.now()); !s.closed(d); d = dayOf(d.start.Add(-time.Nanosecond)) {
		touched, err := s.touched(ctx, d)
		if err != nil {
			return err
		}
		rows, err := s.db.TemplateDailyStats.Query().Where(templatedailystats.Day(dayDate(d))).
			Select(templatedailystats.FieldTemplateID, templatedailystats.FieldShopNumber).All(ctx)
		if err != nil {
			return fmt.Errorf("stats: rows of %s: %w", d.key, err)
		}
		for _, r := range rows {
			touched[r.TemplateID] = r.ShopNumber
		}
		for id, shop := range touched {
			if err := s.rebuildDay(ctx, id, shop, d); err != nil {
				return err
			}
		}
	}
	return nil
}
