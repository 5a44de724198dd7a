package template

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/store"

	"github.com/redis/go-redis/v9"
)

// RepairStocks compares, for every template in the outbox index, the cached stock with what it
// must be (the database's stock less the outbox's claims MySQL does not hold yet) and drops the
// hashes that show more, so the next lookup rebuilds them exactly. That is what a Redis restored
// from an AOF older than MySQL looks like (claims persisted after its last fsync): left alone, it
// would sell those units again. Each dropped hash is recorded in the template's audit trail
// (CACHE_STOCK_DROPPED). It returns, per corrected template, how many units Redis showed too
// many. Run it at start-up; it is safe beside running claims (a hash showing less is left alone).
//
// A template with stock shards is compared by what all its hashes may still hand out (RedisStock),
// and all of them are dropped together (Invalidate); one whose hashes are not all complete, or
// whose borrows never paused between two reads, is left to the next lookup and the
// reconciliation.
func (c *Cache) RepairStocks(ctx context.Context) (map[int64]int, error) {
	members, err := c.rdb.SMembers(ctx, keys.OutboxIndex()).Result()
	if err != nil {
		return nil, fmt.Errorf("repair stocks: outbox index: %w", err)
	}
	fixed := map[int64]int{}
	for _, m := range members {
		id, err := strconv.ParseInt(m, 10, 64)
		if err != nil {
			continue
		}
		cached, ok, err := c.cachedStock(ctx, id)
		if err != nil {
			return fixed, fmt.Errorf("repair stock of %d: %w", id, err)
		}
		if !ok {
			continue // not cached: the next lookup rebuilds it exactly anyway
		}
		want, err := c.load(ctx, id)
		if errors.Is(err, coupon.ErrNotFound) {
			continue
		}
		if err != nil {
			return fixed, fmt.Errorf("repair stock of %d: %w", id, err)
		}
		if cached > want.Stock {
			if err := c.Invalidate(ctx, id); err != nil {
				return fixed, fmt.Errorf("repair stock of %d: %w", id, err)
			}
			fixed[id] = cached - want.Stock
			if err := c.auditDropped(ctx, want, cached); err != nil {
				return fixed, fmt.Errorf("repair stock of %d: %w", id, err)
			}
		}
	}
	return fixed, nil
}

// auditDropped records that the hash of t was dropped while it showed cached units of stock, more
// than t.Stock (what it must show).
func (c *Cache) auditDropped(ctx context.Context, t *coupon.Template, cached int) error {
	return store.WithTx(ctx, c.db, func(tx *ent.Tx) error {
		return WriteAudit(ctx, tx, AuditEntry{Shop: t.ShopNumber, TemplateID: t.ID, ActorRole: ActorSystem,
			Action: ActionCacheStockDropped, Before: map[string]any{"cachedStock": cached}, After: map[string]any{"stock": t.Stock}})
	}, nil)
}

// cachedStock is what Redis may still hand out of template id: its hash's stock, or with stock
// shards RedisStock; ok is false when that is not known (not cached, or not read consistently).
func (c *Cache) cachedStock(ctx context.Context, id int64) (stock int, ok bool, err error) {
	n, err := c.shardsOf(ctx, id)
	if errors.Is(err, coupon.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if n > 1 {
		stock, cached, consistent, err := c.RedisStock(ctx, id, n)
		return stock, cached && consistent, err
	}
	stock, err = c.rdb.HGet(ctx, keys.Template(id), "stock").Int()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	return stock, err == nil, err
}
