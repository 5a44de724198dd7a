package template

import (
	"context"
	"errors"
	"fmt"

	"coupond/coupon"

	"github.com/redis/go-redis/v9"
)

// GetMany returns the templates of ids by id (ids that do not exist are absent): the cached ones
// in one pipelined round trip of HGETALLs, each of the others through Get's lookup chain.
func (c *Cache) GetMany(ctx context.Context, ids []int64) (map[int64]*coupon.Template, error) {
	out := make(map[int64]*coupon.Template, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	pipe := c.rdb.Pipeline()
	hashes := make([]*redis.MapStringStringCmd, len(ids))
	for i, id := range ids {
		hashes[i] = pipe.HGetAll(ctx, templateKeys(id).Hash)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("template cache: get %d templates: %w", len(ids), err)
	}
	for i, id := range ids {
		t, err := decodeHash(hashes[i].Val())
		if t != nil && err == nil {
			t, err = c.withShards(ctx, t) // nil when a shard's hash is missing
		}
		if t == nil && err == nil {
			t, err = c.Get(ctx, id)
		}
		switch {
		case errors.Is(err, coupon.ErrNotFound):
			continue
		case err != nil:
			return nil, err
		}
		out[id] = t
	}
	return out, nil
}
