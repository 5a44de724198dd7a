package template

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"time"

	"coupond/coupon"
	"coupond/lua"
)

// errLockLost means a rebuild's write was refused because its lock expired or a writer deleted it
// (the database read may be stale); the rebuild starts over.
var errLockLost = errors.New("template cache: rebuild lock lost")

// Get returns template id through the lookup chain:
//
//  1. the template hash (one HGETALL; almost all traffic ends here);
//  2. the Bloom filter says the id is absent → coupon.ErrNotFound (the filter is never changed here);
//  3. the null-value key exists → coupon.ErrNotFound;
//  4. one rebuild per id in this process (singleflight), under the Redis rebuild lock shared by all
//     instances: check the null-value key and the hash again, then read the database; a row is
//     cached by one script (TTL at the template's end), an absent id gets the null-value key for
//     NullTTL. While another instance holds the lock, Get polls for its result and takes the lock
//     when it is free, for up to LockWait; then it fails with an error.
//
// It returns coupon.ErrNotFound only when the template does not exist; a Redis or database failure is
// returned as an error. Each caller gets its own copy of the template. Callers that share one
// rebuild share its work, which no caller's cancellation stops (it is bounded by LockWait+LockTTL).
//
// A template with stock shards shows as Stock its reserve plus the stock of its shards (units in
// lends between shards, in flight for a round trip, are not shown), and is cached only when its
// own hash and every shard's are complete: when one is missing (expired, evicted, dropped), the
// rebuild freezes the others and writes them all again.
func (c *Cache) Get(ctx context.Context, id int64) (*coupon.Template, error) {
	return c.get(ctx, id)
}

// get is Get of the template's own hash.
func (c *Cache) get(ctx context.Context, id int64) (*coupon.Template, error) {
	k := templateKeys(id)
	h, err := c.rdb.HGetAll(ctx, k.Hash).Result()
	if err != nil {
		return nil, fmt.Errorf("template cache: get %d: %w", id, err)
	}
	t, err := decodeHash(h)
	if t != nil && err == nil {
		t, err = c.withShards(ctx, t)
	}
	if t != nil || err != nil {
		return t, err
	}
	if _, ok := h["data"]; !ok { // no hash (with one, the template exists and a shard's hash is missing)
		maybe, err := c.bloomMayContain(ctx, id)
		if err != nil {
			return nil, err
		}
		if !maybe {
			return nil, coupon.ErrNotFound
		}
		null, err := c.rdb.Exists(ctx, k.Null).Result()
		if err != nil {
			return nil, fmt.Errorf("template cache: get %d: %w", id, err)
		}
		if null == 1 {
			return nil, coupon.ErrNotFound
		}
	}
	v, err, _ := c.group.Do(strconv.FormatInt(id, 10), func() (any, error) {
		// Shared by every caller waiting for this id: no one caller's cancellation may end it.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.LockWait+c.opts.LockTTL)
		defer cancel()
		return c.rebuild(ctx, id)
	})
	if err != nil {
		return nil, err
	}
	cp := *v.(*coupon.Template)
	cp.Stock = max(0, cp.Stock) // as decodeHash shows it
	return &cp, nil
}

// withShards returns t, decoded from its own hash, with its shards' stock added when it has stock
// shards; nil when one of its shards' hashes is not complete (the template needs a rebuild).
func (c *Cache) withShards(ctx context.Context, t *coupon.Template) (*coupon.Template, error) {
	if t.StockShards() == 1 {
		return t, nil
	}
	stocks, complete, err := c.shardsComplete(ctx, t.ID, t.StockShards())
	if err != nil || complete < t.StockShards() {
		return nil, err
	}
	for _, s := range stocks {
		t.Stock += max(s, 0)
	}
	return t, nil
}

// rebuild is step 4 of Get: it returns the template once this instance or another has cached it
// (or coupon.ErrNotFound once the id is marked absent), taking the rebuild lock when it is free.
func (c *Cache) rebuild(ctx context.Context, id int64) (*coupon.Template, error) {
	k := templateKeys(id)
	token := rand.Text()
	deadline := time.Now().Add(c.opts.LockWait)
	for {
		locked, err := c.rdb.SetNX(ctx, k.Lock, token, c.opts.LockTTL).Result()
		if err != nil {
			return nil, fmt.Errorf("template cache: lock %d: %w", id, err)
		}
		if locked {
			t, err := c.rebuildLocked(ctx, id, token)
			if !errors.Is(err, errLockLost) {
				return t, err
			}
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("template cache: template %d is being rebuilt elsewhere for more than %v", id, c.opts.LockWait)
		}
		wait := time.NewTimer(10*time.Millisecond + mrand.N(10*time.Millisecond))
		select {
		case <-ctx.Done():
			wait.Stop()
			return nil, ctx.Err()
		case <-wait.C:
		}
		if t, err := c.peek(ctx, id); t != nil || err != nil {
			return t, err
		}
	}
}

// rebuildLocked runs while this caller holds the rebuild lock with token: double check, database
// read, cache write. It returns errLockLost when the lock was lost before the write.
func (c *Cache) rebuildLocked(ctx context.Context, id int64, token string) (*coupon.Template, error) {
	k := templateKeys(id)
	// Release even when ctx has ended; a lock left behind expires after LockTTL anyway.
	defer func() { _, _ = lua.Unlock(context.WithoutCancel(ctx), c.rdb, k.Lock, token) }()

	if t, err := c.peek(ctx, id); t != nil || err != nil {
		return t, err
	}
	// A template with stock shards is frozen first: every unit its shards held is then in MySQL's
	// stock or held by a claim or row that load reads (the outboxes and journals, after this).
	n, err := c.shardsOf(ctx, id)
	switch {
	case err == nil:
		err = c.freezeShards(ctx, id, n)
	case errors.Is(err, coupon.ErrNotFound):
		err = nil // load says so too
	}
	var t *coupon.Template
	if err == nil {
		t, err = c.load(ctx, id) // the stock less the claims MySQL does not hold yet
	}
	if errors.Is(err, coupon.ErrNotFound) {
		set, err := lua.TemplateSetNull(ctx, c.rdb, k, c.opts.NullTTL.Milliseconds(), token)
		switch {
		case err != nil:
			return nil, fmt.Errorf("template cache: mark %d absent: %w", id, err)
		case !set:
			return nil, errLockLost
		}
		return nil, coupon.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("template cache: load %d: %w", id, err)
	}
	if err := c.put(ctx, t, token); err != nil {
		if errors.Is(err, errLockLost) {
			return nil, err
		}
		return nil, fmt.Errorf("template cache: put %d: %w", id, err)
	}
	return t, nil
}

// peek looks at the hash and the null-value key of id in one round trip: the template when its
// complete hash exists (and, with stock shards, every shard's: one more round trip), else coupon.ErrNotFound when the id is marked absent, else nil and nil.
func (c *Cache) peek(ctx context.Context, id int64) (*coupon.Template, error) {
	k := templateKeys(id)
	pipe := c.rdb.Pipeline()
	null := pipe.Exists(ctx, k.Null)
	hash := pipe.HGetAll(ctx, k.Hash)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("template cache: get %d: %w", id, err)
	}
	t, err := decodeHash(hash.Val())
	if t == nil && err == nil && null.Val() == 1 {
		return nil, coupon.ErrNotFound
	}
	if t != nil && err == nil {
		return c.withShards(ctx, t)
	}
	return t, err
}
