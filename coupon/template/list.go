package template

import (
	"context"
	"errors"
	"fmt"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent/coupontemplate"
	"coupond/ent/predicate"

	"entgo.io/ent/dialect/sql"
	"github.com/redis/go-redis/v9"
)

// Filter narrows a template listing.
type Filter struct {
	Status       *coupon.TemplateStatus
	Type         *coupontemplate.Type
	Source       *coupontemplate.Source
	NameContains *string
	ShopNumber   *int64 // platform only; merchants always see their own shop
}

// List returns the page k of the templates the actor may see that match f, newest first, with the
// live stock of those cached, and the total count of matches.
func (a *Admin) List(ctx context.Context, actor coupon.Actor, f Filter, k coupon.Keyset) (coupon.Page[*coupon.Template], error) {
	var where []predicate.CouponTemplate
	switch {
	case actor.Role == coupon.RoleMerchant: // its shop's SHOP templates (a PLATFORM one belongs to no shop)
		where = append(where, coupontemplate.ShopNumber(actor.Shop), coupontemplate.SourceEQ(coupontemplate.SourceSHOP))
	case f.ShopNumber != nil:
		where = append(where, coupontemplate.ShopNumber(*f.ShopNumber))
	}
	if f.Type != nil {
		where = append(where, coupontemplate.TypeEQ(*f.Type))
	}
	if f.Source != nil {
		where = append(where, coupontemplate.SourceEQ(*f.Source))
	}
	if f.NameContains != nil && *f.NameContains != "" {
		where = append(where, coupontemplate.NameContainsFold(*f.NameContains))
	}
	if f.Status != nil {
		where = append(where, statusPredicate(*f.Status, a.now()))
	}
	total, err := a.db.CouponTemplate.Query().Where(where...).Count(ctx)
	if err != nil {
		return coupon.Page[*coupon.Template]{}, fmt.Errorf("count templates: %w", err)
	}
	q := a.db.CouponTemplate.Query().Where(where...)
	switch {
	case k.Backward && k.Before > 0:
		q = q.Where(coupontemplate.IDGT(k.Before))
	case !k.Backward && k.After > 0:
		q = q.Where(coupontemplate.IDLT(k.After))
	}
	order := sql.OrderDesc()
	if k.Backward {
		order = sql.OrderAsc()
	}
	rows, err := q.Order(coupontemplate.ByID(order)).Limit(k.Size + 1).All(ctx)
	if err != nil {
		return coupon.Page[*coupon.Template]{}, fmt.Errorf("list templates: %w", err)
	}
	page := coupon.NewPage(rows, k, total, coupon.TemplateFromRow)
	if err := a.LiveStocks(ctx, page.Items); err != nil {
		return coupon.Page[*coupon.Template]{}, err
	}
	return page, nil
}

// LiveStocks replaces the database stock of each cached template by the live cached figure (with
// stock shards: its reserve plus its shards' stocks), in one pipelined round trip.
func (a *Admin) LiveStocks(ctx context.Context, ts []*coupon.Template) error {
	if len(ts) == 0 {
		return nil
	}
	pipe := a.rdb.Pipeline()
	cmds := make([][]*redis.StringCmd, len(ts))
	for i, t := range ts {
		cmds[i] = []*redis.StringCmd{pipe.HGet(ctx, keys.Template(t.ID), "stock")}
		for s := 0; t.StockShards() > 1 && s < t.StockShards(); s++ {
			cmds[i] = append(cmds[i], pipe.HGet(ctx, keys.StockShard(t.ID, s, t.StockShards()).Stock(), "stock"))
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("live stocks: %w", err)
	}
	for i, c := range cmds {
		n, err := c[0].Int()
		if err != nil {
			continue // not cached: the database's figure
		}
		for _, shard := range c[1:] {
			v, _ := shard.Int()
			n += max(v, 0)
		}
		ts[i].Stock = max(0, n) // below 0 only while over-accepted claims are being failed
	}
	return nil
}

// statusPredicate selects templates whose client-facing status at now is s.
func statusPredicate(s coupon.TemplateStatus, now time.Time) predicate.CouponTemplate {
	switch s {
	case coupon.StatusNotStarted:
		return coupontemplate.And(coupontemplate.StatusEQ(coupontemplate.StatusACTIVE), coupontemplate.ValidStartTimeGT(now))
	case coupon.StatusActive:
		return coupontemplate.And(coupontemplate.StatusEQ(coupontemplate.StatusACTIVE),
			coupontemplate.ValidStartTimeLTE(now), coupontemplate.ValidEndTimeGT(now))
	default:
		return coupontemplate.Or(coupontemplate.StatusEQ(coupontemplate.StatusENDED), coupontemplate.ValidEndTimeLTE(now))
	}
}
