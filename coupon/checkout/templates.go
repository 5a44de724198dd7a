package checkout

import (
	"context"
	"sync"
	"time"

	"coupond/coupon"
)

const (
	// templateTTL is how long the checkout keeps a template it read in process memory. It reads
	// only what a template never changes after its creation (source, shop, target, goods, type and
	// consume rule, refund policy), so a copy of any age is right; the TTL bounds the memory.
	templateTTL = 10 * time.Second
	// maxRecentTemplates bounds the templates kept: past it, the copies are dropped at once.
	maxRecentTemplates = 10_000
)

// recent is Templates with the templates read less than templateTTL ago kept in process: a lock
// or an applicableCoupons call of a template read recently costs no Redis round trip. The copies
// are shared by the callers, which do not change them.
type recent struct {
	Templates
	now func() time.Time
	mu  sync.Mutex
	m   map[int64]recentTemplate
}

type recentTemplate struct {
	t     *coupon.Template
	until time.Time
}

func recentTemplates(t Templates) *recent {
	return &recent{Templates: t, now: time.Now, m: map[int64]recentTemplate{}}
}

// Get returns template id from process memory when read less than templateTTL ago, else from
// the lookup chain.
func (r *recent) Get(ctx context.Context, id int64) (*coupon.Template, error) {
	if t := r.cached(id, r.now()); t != nil {
		return t, nil
	}
	t, err := r.Templates.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	r.keep(map[int64]*coupon.Template{id: t})
	return t, nil
}

// GetMany returns the templates of ids by id (those that do not exist are absent), the recent
// ones from process memory and the others in one call of the lookup chain's GetMany.
func (r *recent) GetMany(ctx context.Context, ids []int64) (map[int64]*coupon.Template, error) {
	out := make(map[int64]*coupon.Template, len(ids))
	var missing []int64
	now := r.now()
	for _, id := range ids {
		if t := r.cached(id, now); t != nil {
			out[id] = t
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	read, err := r.Templates.GetMany(ctx, missing)
	if err != nil {
		return nil, err
	}
	r.keep(read)
	for id, t := range read {
		out[id] = t
	}
	return out, nil
}

// cached is template id when it was read less than templateTTL before now, else nil.
func (r *recent) cached(id int64, now time.Time) *coupon.Template {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.m[id]; ok && now.Before(e.until) {
		return e.t
	}
	return nil
}

// keep remembers the templates read now.
func (r *recent) keep(ts map[int64]*coupon.Template) {
	until := r.now().Add(templateTTL)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.m)+len(ts) > maxRecentTemplates {
		clear(r.m)
	}
	for id, t := range ts {
		r.m[id] = recentTemplate{t: t, until: until}
	}
}
