package coupon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/predicate"
	"coupond/ent/schematype"
	"coupond/idgen"

	"entgo.io/ent/dialect/sql"
	"github.com/redis/go-redis/v9"
)

// Audit actions recorded in coupon_template_log.
const (
	ActionCreate        = "CREATE"
	ActionIncreaseStock = "INCREASE_STOCK"
	ActionTerminate     = "TERMINATE"
	ActionStockDrift    = "STOCK_DRIFT"
)

// TemplateAdmin creates, changes, finds and lists templates on behalf of merchants and the
// platform. A merchant only ever sees its own shop: another shop's template is NOT_FOUND.
type TemplateAdmin struct {
	db    *ent.Client
	rdb   redis.UniversalClient
	cache *TemplateCache
	now   func() time.Time
}

// NewTemplateAdmin returns a TemplateAdmin over the database and the template cache.
func NewTemplateAdmin(db *ent.Client, rdb redis.UniversalClient, cache *TemplateCache) *TemplateAdmin {
	return &TemplateAdmin{db: db, rdb: rdb, cache: cache, now: time.Now}
}

// Create validates the input and creates the template, all or nothing (D-18): the id is added to
// the Bloom filter first (a spare Bloom bit is harmless, a missing one would hide the template),
// then the row and its audit entry are written in one transaction; the cache is warmed after
// commit and rebuilt on demand if that fails.
func (a *TemplateAdmin) Create(ctx context.Context, actor Actor, in CreateTemplateInput) (*Template, error) {
	if err := in.Validate(a.now()); err != nil {
		return nil, err
	}
	wantSource := coupontemplate.SourceSHOP
	if actor.Role == RolePlatform {
		wantSource = coupontemplate.SourcePLATFORM
	}
	if in.Source != wantSource {
		return nil, ValidationError{FieldError("source", fmt.Sprintf("a %s may only create %s coupons", actor.Role, wantSource))}
	}
	id := idgen.Next()
	if err := a.cache.BloomAdd(ctx, id); err != nil {
		return nil, fmt.Errorf("create template: bloom: %w", err)
	}
	var t *Template
	err := withTx(ctx, a.db, func(tx *ent.Tx) error {
		c := tx.CouponTemplate.Create().
			SetID(id).SetShopNumber(actor.Shop).SetName(strings.TrimSpace(in.Name)).
			SetSource(in.Source).SetTarget(in.Target).SetType(in.Type).
			SetValidStartTime(in.ValidStartTime.UTC()).SetValidEndTime(in.ValidEndTime.UTC()).
			SetTotalStock(in.Stock).SetStock(in.Stock).SetCreatedBy(actor.UserID).
			SetReceiveRule(schematype.ReceiveRule{LimitPerPerson: in.LimitPerPerson, UsageInstructions: deref(in.UsageInstructions)}).
			SetConsumeRule(schematype.ConsumeRule{
				ThresholdAmount: in.ThresholdAmount, DiscountAmount: in.DiscountAmount,
				DiscountRate: in.DiscountRate, MaxDiscountAmount: in.MaxDiscountAmount,
				ValidityHours: in.ValidityHours,
			})
		if in.Target == coupontemplate.TargetPRODUCT {
			c.SetGoods(strings.TrimSpace(*in.Goods))
		}
		if in.RefundPolicy != nil {
			c.SetRefundPolicy(*in.RefundPolicy)
		}
		row, err := c.Save(ctx)
		if err != nil {
			return fmt.Errorf("insert template: %w", err)
		}
		t = templateFromEnt(row)
		return audit(ctx, tx, actor, row.ShopNumber, row.ID, ActionCreate, nil, t)
	}, nil)
	if err != nil {
		return nil, err
	}
	if err := a.cache.Put(ctx, t); err != nil {
		slog.WarnContext(ctx, "template cache warm-up failed; it is rebuilt on the first lookup", "template", t.ID, "err", err)
	}
	return t, nil
}

// IncreaseStock adds amount to the template's total and remaining stock, in the database and in
// the cache as one change: the row is locked, the cached hash is incremented (only if it exists
// whole, D-09) while the lock is held, then the transaction commits. Concurrent increases
// therefore sum exactly in both. If the commit fails the cache increment is undone.
func (a *TemplateAdmin) IncreaseStock(ctx context.Context, actor Actor, id int64, amount int) (*Template, error) {
	if amount < 1 || amount > MaxTemplateStock {
		return nil, ValidationError{FieldError("amount", "amount must be between 1 and 10000000")}
	}
	var cached bool
	err := withTx(ctx, a.db, func(tx *ent.Tx) error {
		row, err := a.lockOwned(ctx, tx, actor, id)
		if err != nil {
			return err
		}
		before := templateFromEnt(row)
		if before.StatusAt(a.now()) == StatusEnded {
			return Errorf(CodeEnded, "the template has ended; its stock can no longer change")
		}
		if row.TotalStock+amount > MaxTemplateStock {
			return ValidationError{FieldError("amount", "total stock would exceed 10000000")}
		}
		row, err = row.Update().AddStock(amount).AddTotalStock(amount).AddVersion(1).Save(ctx)
		if err != nil {
			return fmt.Errorf("increase stock: %w", err)
		}
		if err := audit(ctx, tx, actor, row.ShopNumber, id, ActionIncreaseStock, before, templateFromEnt(row)); err != nil {
			return err
		}
		if cached, err = a.cache.AddStock(ctx, id, amount); err != nil {
			return fmt.Errorf("increase cached stock: %w", err)
		}
		return nil
	}, func() {
		if cached {
			a.undo(ctx, id, func() error { _, err := a.cache.AddStock(ctx, id, -amount); return err })
		}
	})
	if err != nil {
		return nil, err
	}
	return a.cache.Get(ctx, id)
}

// Terminate ends the template now: no claim succeeds afterwards. Terminating an ended template
// changes nothing and returns it.
func (a *TemplateAdmin) Terminate(ctx context.Context, actor Actor, id int64) (*Template, error) {
	err := withTx(ctx, a.db, func(tx *ent.Tx) error {
		row, err := a.lockOwned(ctx, tx, actor, id)
		if err != nil {
			return err
		}
		if row.Status == coupontemplate.StatusENDED {
			return nil
		}
		before := templateFromEnt(row)
		row, err = row.Update().SetStatus(coupontemplate.StatusENDED).AddVersion(1).Save(ctx)
		if err != nil {
			return fmt.Errorf("terminate: %w", err)
		}
		if err := audit(ctx, tx, actor, row.ShopNumber, id, ActionTerminate, before, templateFromEnt(row)); err != nil {
			return err
		}
		if _, err := a.cache.MarkEnded(ctx, id); err != nil {
			return fmt.Errorf("mark cached template ended: %w", err)
		}
		return nil
	}, func() {
		// The cache says ENDED but the row does not: drop the hash so it is rebuilt from the row.
		a.undo(ctx, id, func() error { return a.cache.Invalidate(ctx, id) })
	})
	if err != nil {
		return nil, err
	}
	return a.cache.Get(ctx, id)
}

// undo runs a compensation of a cache change whose transaction did not commit, logging failure.
func (a *TemplateAdmin) undo(ctx context.Context, id int64, fn func() error) {
	if err := fn(); err != nil {
		slog.ErrorContext(ctx, "template cache compensation failed", "template", id, "err", err)
	}
}

// Get returns the template as the actor may see it: anonymous callers and users see any template,
// a merchant only its own shop's, the platform all. It returns ErrNotFound otherwise.
func (a *TemplateAdmin) Get(ctx context.Context, actor *Actor, id int64) (*Template, error) {
	t, err := a.cache.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if actor != nil && actor.Role != RoleUser && !actor.CanSeeShop(t.ShopNumber) {
		return nil, ErrNotFound
	}
	return t, nil
}

// lockOwned loads the template row FOR UPDATE, restricted to the actor's shop (ErrNotFound for
// another shop's template, so ids do not leak).
func (a *TemplateAdmin) lockOwned(ctx context.Context, tx *ent.Tx, actor Actor, id int64) (*ent.CouponTemplate, error) {
	q := tx.CouponTemplate.Query().Where(coupontemplate.ID(id))
	if actor.Role != RolePlatform {
		q = q.Where(coupontemplate.ShopNumber(actor.Shop))
	}
	row, err := q.ForUpdate().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load template: %w", err)
	}
	return row, nil
}

// audit writes one coupon_template_log row.
func audit(ctx context.Context, tx *ent.Tx, actor Actor, shop, templateID int64, action string, before, after *Template) error {
	c := tx.CouponTemplateLog.Create().SetShopNumber(shop).SetTemplateID(templateID).
		SetActorID(actor.UserID).SetActorRole(string(actor.Role)).SetAction(action)
	if before != nil {
		c.SetBefore(snapshot(before))
	}
	if after != nil {
		c.SetAfter(snapshot(after))
	}
	if err := c.Exec(ctx); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// snapshot is the template as a JSON object, for the audit log.
func snapshot(t *Template) map[string]any {
	b, _ := json.Marshal(t)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TemplateFilter narrows a template listing.
type TemplateFilter struct {
	Status       *TemplateStatus
	Type         *coupontemplate.Type
	Source       *coupontemplate.Source
	NameContains *string
	ShopNumber   *int64 // platform only; merchants always see their own shop
}

// TemplatePage is one page of a listing, newest first.
type TemplatePage struct {
	Templates []*Template
	HasNext   bool
	Total     int
}

// List returns up to first templates with id < afterID (0: from the newest) that the actor may
// see and that match f, with the live stock of those cached, and the total count of matches.
func (a *TemplateAdmin) List(ctx context.Context, actor Actor, f TemplateFilter, first int, afterID int64) (*TemplatePage, error) {
	var where []predicate.CouponTemplate
	switch {
	case actor.Role == RoleMerchant:
		where = append(where, coupontemplate.ShopNumber(actor.Shop))
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
		return nil, fmt.Errorf("count templates: %w", err)
	}
	q := a.db.CouponTemplate.Query().Where(where...)
	if afterID > 0 {
		q = q.Where(coupontemplate.IDLT(afterID))
	}
	rows, err := q.Order(coupontemplate.ByID(sql.OrderDesc())).Limit(first + 1).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("list templates: %w", err)
	}
	page := &TemplatePage{Total: total, HasNext: len(rows) > first}
	if page.HasNext {
		rows = rows[:first]
	}
	for _, r := range rows {
		page.Templates = append(page.Templates, templateFromEnt(r))
	}
	if err := a.liveStocks(ctx, page.Templates); err != nil {
		return nil, err
	}
	return page, nil
}

// liveStocks replaces the database stock of each cached template by the live cached figure,
// in one pipelined round trip.
func (a *TemplateAdmin) liveStocks(ctx context.Context, ts []*Template) error {
	if len(ts) == 0 {
		return nil
	}
	pipe := a.rdb.Pipeline()
	cmds := make([]*redis.StringCmd, len(ts))
	for i, t := range ts {
		cmds[i] = pipe.HGet(ctx, TemplateKey(t.ID), "stock")
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("live stocks: %w", err)
	}
	for i, c := range cmds {
		if n, err := c.Int(); err == nil {
			ts[i].Stock = n
		}
	}
	return nil
}

// statusPredicate selects templates whose client-facing status at now is s.
func statusPredicate(s TemplateStatus, now time.Time) predicate.CouponTemplate {
	switch s {
	case StatusNotStarted:
		return coupontemplate.And(coupontemplate.StatusEQ(coupontemplate.StatusACTIVE), coupontemplate.ValidStartTimeGT(now))
	case StatusActive:
		return coupontemplate.And(coupontemplate.StatusEQ(coupontemplate.StatusACTIVE),
			coupontemplate.ValidStartTimeLTE(now), coupontemplate.ValidEndTimeGT(now))
	default:
		return coupontemplate.Or(coupontemplate.StatusEQ(coupontemplate.StatusENDED), coupontemplate.ValidEndTimeLTE(now))
	}
}
