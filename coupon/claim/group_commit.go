package claim

import (
	"context"
	"errors"
	"sync"
	"time"

	"coupond/coupon/keys"
)

// syncLinger is how long a group's leader waits for more sync claims of its template before
// taking the group (the claims arriving while a group is being written join the next one anyway).
const syncLinger = time.Millisecond

// groupCommit writes concurrent sync claims of one template (one stock shard: its outbox) as shared batches: a claim joins the
// template's waiting group; when no group of the template is being written, its first claim leads
// it (after syncLinger) and writes it with one persist, up to the persister's batch size a group;
// claims arriving meanwhile wait in the next group, which the finished leader hands on to a new
// goroutine. Every claim gets its group's result only after the group's transactions committed.
type groupCommit struct {
	p   *Persister
	mu  sync.Mutex
	tpl map[keys.Shard]*syncQueue
}

// syncQueue is one template's groups: one being written (running) and those waiting, in order.
type syncQueue struct {
	running bool
	waiting []*syncGroup
}

// syncGroup is one shared batch of sync claims and, once done is closed, its result.
type syncGroup struct {
	claims []claim
	done   chan struct{}
	res    batchResult
	err    error
}

func newGroupCommit(p *Persister) *groupCommit {
	return &groupCommit{p: p, tpl: map[keys.Shard]*syncQueue{}}
}

// finish writes c with the other sync claims of its stock shard waiting now and returns the batch's
// result (c's outcome is in it), or the batch's error. ctx bounds only the wait: the batch itself
// runs to its end whatever happens to the caller (persist), so a claim whose caller gave up is
// still written, or left in the outbox for the persister.
func (g *groupCommit) finish(ctx context.Context, shard keys.Shard, c claim) (batchResult, error) {
	g.mu.Lock()
	q := g.tpl[shard]
	if q == nil {
		q = &syncQueue{}
		g.tpl[shard] = q
	}
	if n := len(q.waiting); n == 0 || len(q.waiting[n-1].claims) >= g.p.cfg.BatchSize {
		q.waiting = append(q.waiting, &syncGroup{done: make(chan struct{})})
	}
	grp := q.waiting[len(q.waiting)-1]
	grp.claims = append(grp.claims, c)
	lead := !q.running
	if lead {
		q.running = true
	}
	g.mu.Unlock()
	if lead {
		g.lead(ctx, shard)
	}
	select {
	case <-grp.done:
		return grp.res, grp.err
	case <-ctx.Done():
		return batchResult{}, ctx.Err()
	}
}

// lead writes the template's first waiting group after syncLinger, then hands the next waiting
// group, if any, to a new goroutine, or marks the template idle. A panic while writing (a test's
// injected crash) fails the group's claims with errGroupAborted and still hands on.
func (g *groupCommit) lead(ctx context.Context, shard keys.Shard) {
	time.Sleep(syncLinger)
	g.mu.Lock()
	q := g.tpl[shard]
	grp := q.waiting[0]
	q.waiting = q.waiting[1:]
	g.mu.Unlock()
	written := false
	defer func() {
		if !written {
			grp.err = errGroupAborted
			close(grp.done)
		}
		g.handOn(ctx, shard, q)
	}()
	ids := make([]string, len(grp.claims))
	for i, c := range grp.claims {
		ids[i] = c.streamID
	}
	grp.res, grp.err = g.p.persist(ctx, shard, grp.claims, ids)
	written = true
	close(grp.done)
}

// errGroupAborted fails the claims of a group whose writing stopped in a panic: they stay in the
// outbox for the persister.
var errGroupAborted = errors.New("claim: the sync batch was aborted")

// handOn starts the next waiting group of q, or marks the template idle.
func (g *groupCommit) handOn(ctx context.Context, shard keys.Shard, q *syncQueue) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(q.waiting) == 0 {
		q.running = false
		delete(g.tpl, shard)
		return
	}
	go g.lead(context.WithoutCancel(ctx), shard)
}
