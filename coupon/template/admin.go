package template

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/schematype"
	"coupond/idgen"
	"coupond/store"

	"github.com/redis/go-redis/v9"
)

// Admin creates, changes, finds and lists templates on behalf of merchants and the
// platform. A merchant only ever sees its own shop: another shop's template is NOT_FOUND.
type Admin struct {
	db    *ent.Client
	rdb   redis.UniversalClient
	cache *Cache
	now   func() time.Time
	// DefaultStockShards is the sub-stocks of a template created without StockShards (0 means 1).
	// Set it before the first Create.
	DefaultStockShards int
}

// NewAdmin returns a Admin over the database and the template cache.
func NewAdmin(db *ent.Client, rdb redis.UniversalClient, cache *Cache) *Admin {
	return &Admin{db: db, rdb: rdb, cache: cache, now: time.Now}
}

// Create validates the input and creates the template, all or nothing: the id is added to
// the Bloom filter first (a spare Bloom bit is harmless, a missing one would hide the template),
// then the row and its audit entry are written in one transaction; the cache is warmed after
// commit and rebuilt on demand if that fails.
func (a *Admin) Create(ctx context.Context, actor coupon.Actor, in CreateInput) (*coupon.Template, error) {
	if err := in.Validate(a.now()); err != nil {
		return nil, err
	}
	wantSource := coupontemplate.SourceSHOP
	if actor.Role == coupon.RolePlatform {
		wantSource = coupontemplate.SourcePLATFORM
	}
	if in.Source != wantSource {
		return nil, coupon.ValidationError{coupon.FieldError("source", fmt.Sprintf("a %s may only create %s coupons", actor.Role, wantSource))}
	}
	shop := actor.Shop
	if in.Source == coupontemplate.SourcePLATFORM {
		shop = 0 // a platform template belongs to no shop
	}
	id := idgen.Next()
	if err := a.cache.BloomAdd(ctx, id); err != nil {
		return nil, fmt.Errorf("create template: bloom: %w", err)
	}
	var t *coupon.Template
	err := store.WithTx(ctx, a.db, func(tx *ent.Tx) error {
		c := tx.CouponTemplate.Create().
			SetID(id).SetShopNumber(shop).SetName(strings.TrimSpace(in.Name)).
			SetSource(in.Source).SetTarget(in.Target).SetType(in.Type).
			SetValidStartTime(in.ValidStartTime.UTC()).SetValidEndTime(in.ValidEndTime.UTC()).
			SetTotalStock(in.Stock).SetStock(in.Stock).SetCreatedBy(actor.UserID).SetStockShards(a.stockShards(in)).
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
		t = coupon.TemplateFromRow(row)
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

// stockShards is the sub-stocks a template created from in gets: its StockShards, else the default.
func (a *Admin) stockShards(in CreateInput) int {
	if in.StockShards != nil {
		return *in.StockShards
	}
	return max(a.DefaultStockShards, 1)
}

// IncreaseStock adds amount to the template's total and remaining stock, in the database and in
// the cache as one change: the row is locked, the cached hash is incremented (only if it exists
// whole) while the lock is held, then the transaction commits. Concurrent increases
// therefore sum exactly in both. If the commit fails the cache increment is undone.
func (a *Admin) IncreaseStock(ctx context.Context, actor coupon.Actor, id int64, amount int) (*coupon.Template, error) {
	if amount < 1 || amount > MaxTemplateStock {
		return nil, coupon.ValidationError{coupon.FieldError("amount", "amount must be between 1 and 10000000")}
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	var cached bool
	err := store.WithTx(ctx, a.db, func(tx *ent.Tx) error {
		row, err := a.lockOwned(ctx, tx, actor, id)
		if err != nil {
			return err
		}
		before := coupon.TemplateFromRow(row)
		if before.StatusAt(a.now()) == coupon.StatusEnded {
			return coupon.Errorf(coupon.CodeEnded, "the template has ended; its stock can no longer change")
		}
		if row.TotalStock+amount > MaxTemplateStock {
			return coupon.ValidationError{coupon.FieldError("amount", "total stock would exceed 10000000")}
		}
		if err := tx.CouponTemplate.Update().Where(coupontemplate.ID(row.ID), coupontemplate.ShopNumber(row.ShopNumber)).AddStock(amount).AddTotalStock(amount).AddVersion(1).Exec(ctx); err != nil {
			return fmt.Errorf("increase stock: %w", err)
		}
		if row, err = reread(ctx, tx, row); err != nil {
			return err
		}
		if err := audit(ctx, tx, actor, row.ShopNumber, id, ActionIncreaseStock, before, coupon.TemplateFromRow(row)); err != nil {
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
func (a *Admin) Terminate(ctx context.Context, actor coupon.Actor, id int64) (*coupon.Template, error) {
	ctx, cancel := detached(ctx)
	defer cancel()
	err := store.WithTx(ctx, a.db, func(tx *ent.Tx) error {
		row, err := a.lockOwned(ctx, tx, actor, id)
		if err != nil {
			return err
		}
		if row.Status == coupontemplate.StatusENDED {
			return nil
		}
		before := coupon.TemplateFromRow(row)
		if err := tx.CouponTemplate.Update().Where(coupontemplate.ID(row.ID), coupontemplate.ShopNumber(row.ShopNumber)).SetStatus(coupontemplate.StatusENDED).AddVersion(1).Exec(ctx); err != nil {
			return fmt.Errorf("terminate: %w", err)
		}
		if row, err = reread(ctx, tx, row); err != nil {
			return err
		}
		if err := audit(ctx, tx, actor, row.ShopNumber, id, ActionTerminate, before, coupon.TemplateFromRow(row)); err != nil {
			return err
		}
		if _, err := a.cache.MarkEnded(ctx, id, row.StockShards); err != nil {
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

// changeTimeout bounds a stock change or termination, which runs to its end once begun.
const changeTimeout = 10 * time.Second

// detached is ctx without its cancellation (a client that disconnects cannot stop a change between
// its cache write and its commit, or skip the undo of a failed commit), bounded by changeTimeout.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), changeTimeout)
}

// undo runs a compensation of a cache change whose transaction did not commit. When it fails, the
// cached hash is dropped, so the next lookup rebuilds it from the database; failing that too, it
// is logged.
func (a *Admin) undo(ctx context.Context, id int64, fn func() error) {
	if err := fn(); err != nil {
		if ierr := a.cache.Invalidate(ctx, id); ierr != nil {
			slog.ErrorContext(ctx, "template cache compensation failed", "template", id, "err", errors.Join(err, ierr))
		}
	}
}

// Get returns the template as the actor may see it: a merchant only its own shop's SHOP
// templates, everyone else (anonymous callers, users, the platform, services) any template. It
// returns coupon.ErrNotFound otherwise.
func (a *Admin) Get(ctx context.Context, actor *coupon.Actor, id int64) (*coupon.Template, error) {
	t, err := a.cache.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if actor != nil && actor.Role == coupon.RoleMerchant && !actor.ManagesTemplate(t.Source, t.ShopNumber) {
		return nil, coupon.ErrNotFound
	}
	return t, nil
}

// lockOwned loads the template row FOR UPDATE when the actor manages it (coupon.ErrNotFound for
// another shop's or, to a merchant, a PLATFORM template, as for an unknown id, so ids do not leak).
func (a *Admin) lockOwned(ctx context.Context, tx *ent.Tx, actor coupon.Actor, id int64) (*ent.CouponTemplate, error) {
	shop := actor.Shop
	if actor.Role == coupon.RolePlatform { // any shop's template: find the shop, the row's shard key, first
		found, err := a.db.CouponTemplate.Query().Where(coupontemplate.ID(id)).Select(coupontemplate.FieldShopNumber).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, coupon.ErrNotFound
		}
		if err != nil {
			return nil, fmt.Errorf("load template: %w", err)
		}
		shop = found.ShopNumber
	}
	row, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(id), coupontemplate.ShopNumber(shop)).ForUpdate().Only(ctx)
	if ent.IsNotFound(err) || (err == nil && !actor.ManagesTemplate(row.Source, row.ShopNumber)) {
		return nil, coupon.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load template: %w", err)
	}
	return row, nil
}

// reread reads row again in tx, by its id and shop (the template keyspace's shard key, so on Vitess
// the read stays on the transaction's shard).
func reread(ctx context.Context, tx *ent.Tx, row *ent.CouponTemplate) (*ent.CouponTemplate, error) {
	row, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(row.ID), coupontemplate.ShopNumber(row.ShopNumber)).Only(ctx)
	if err != nil {
		return nil, fmt.Errorf("read template again: %w", err)
	}
	return row, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
