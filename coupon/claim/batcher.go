package claim

import (
	"context"
	"sync"
	"time"

	"coupond/lua"

	"github.com/redis/go-redis/v9"
)

// Limits of claim batching.
const (
	maxClaimBatch    = 128             // claims in one pipelined write
	maxClaimFlushers = 4               // pipelines in flight at once (see claimBatcher)
	claimSendTimeout = 5 * time.Second // a pipeline is not tied to any one request's context
)

// claimBatcher sends the claim scripts of concurrent requests to Redis together. A request that
// finds a free flusher slot sends at once everything waiting (itself included) as one pipeline
// (lua.RedeemBatch); requests arriving meanwhile wait for the next flush. Alone, a claim goes out
// immediately; under load, dozens share one write and one read on both sides, which is where the
// profile of the claim path spent its time (syscalls). Each script stays atomic on its own.
//
// Fewer pipelines in flight make each one carry more claims: at 64 concurrent clients on the
// 2-core bench box, 4 flushers instead of 8 took Redis from 46 to 38 µs of CPU per claim and
// coupond from 93 to 81 (one bench/isolated.sh ../shared/bench-peer/compare.sh run each; 2
// flushers gave the same CPU and a worse p99); a claim that finds all four busy waits for the
// first of them to finish its round trip.
//
// With wait.Replicas > 0 each flush ends, on every node it wrote to, with WAIT on that node's
// connection (lua.RedeemBatchWait): a flush then takes a replica's round trip longer.
type claimBatcher struct {
	rdb      redis.UniversalClient
	wait     lua.Wait
	mu       sync.Mutex
	pending  []*claimReq
	flushers int
}

type claimReq struct {
	call lua.RedeemCall
	res  lua.RedeemResult
	err  error
	done chan struct{}
}

func newClaimBatcher(rdb redis.UniversalClient, wait lua.Wait) *claimBatcher {
	return &claimBatcher{rdb: rdb, wait: wait}
}

// redeem runs one claim script, batched with concurrent ones. A *lua.ReplicaShortfall error comes
// with the script's result.
func (b *claimBatcher) redeem(ctx context.Context, k lua.RedeemKeys, a lua.RedeemArgs) (lua.RedeemResult, error) {
	req := &claimReq{call: lua.RedeemCall{Keys: k, Args: a}, done: make(chan struct{})}
	b.mu.Lock()
	b.pending = append(b.pending, req)
	lead := b.flushers < maxClaimFlushers
	if lead {
		b.flushers++
	}
	b.mu.Unlock()
	if lead {
		if batch := b.take(); batch != nil {
			b.send(batch)
			go b.flushRest() // whatever arrived meanwhile, without holding up this request
		}
	}
	select {
	case <-req.done:
		return req.res, req.err
	case <-ctx.Done():
		return lua.RedeemResult{}, ctx.Err()
	}
}

// take removes up to maxClaimBatch waiting claims; when none wait it gives the flusher slot back
// and returns nil.
func (b *claimBatcher) take() []*claimReq {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := min(len(b.pending), maxClaimBatch)
	if n == 0 {
		b.flushers--
		return nil
	}
	batch := make([]*claimReq, n)
	copy(batch, b.pending)
	b.pending = b.pending[n:]
	return batch
}

// flushRest sends batches until nothing waits. It runs on a goroutine of its own, so its first
// look at the waiting claims comes a scheduling delay after the flush before it, and takes in
// more of them (taking them in the leader right after its flush instead gave Redis 52–53 µs of
// CPU per claim against 38–44 in two compare.sh runs each).
func (b *claimBatcher) flushRest() {
	for batch := b.take(); batch != nil; batch = b.take() {
		b.send(batch)
	}
}

// send runs one batch and hands each request its answer.
func (b *claimBatcher) send(batch []*claimReq) {
	ctx, cancel := context.WithTimeout(context.Background(), claimSendTimeout)
	defer cancel()
	calls := make([]lua.RedeemCall, len(batch))
	for i, r := range batch {
		calls[i] = r.call
	}
	results, errs := lua.RedeemBatchWait(ctx, b.rdb, calls, b.wait)
	for i, r := range batch {
		r.res, r.err = results[i], errs[i]
		close(r.done)
	}
}
