package lua

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Wait asks RedeemBatchWait to have each node's claim scripts acknowledged by replicas: after the
// scripts, on the same connection, WAIT Replicas Timeout.
type Wait struct {
	Replicas int           // replicas that must acknowledge; 0: no WAIT
	Timeout  time.Duration // WAIT's timeout; keep it under the client's ReadTimeout (3 s by default), which bounds a pipeline's reading
}

// ReplicaShortfall is the error of a call whose script ran (its result is in results[i]) while the
// WAIT after it counted fewer replicas than asked, or failed (Err): the answer is the master's
// alone, and a failover before the replicas catch up loses what the script wrote.
type ReplicaShortfall struct {
	Acked, Want int
	Err         error // WAIT's own error (a broken connection, a read timeout), or nil
}

func (e *ReplicaShortfall) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("lua: WAIT %d: %v", e.Want, e.Err)
	}
	return fmt.Sprintf("lua: WAIT %d: %d replicas acknowledged", e.Want, e.Acked)
}

func (e *ReplicaShortfall) Unwrap() error { return e.Err }

// maxRedirects is how many times sendRedeemWait sends a call again that a cluster node redirected
// (after a failover or during a reshard of its slot), with redirectBackoff doubling in between.
const (
	maxRedirects    = 6
	redirectBackoff = 10 * time.Millisecond
)

// sendRedeemWait runs todo with WAIT: on one server, one pipeline and its WAIT; on a cluster, one
// pipeline and WAIT per master owning calls' slots (ClusterClient.MasterForKey), concurrently, as
// WAIT counts only the replicas of the node it runs on and the writes of its own connection. A
// call a node redirects (its slot moved: a failover, a reshard) did nothing; it is sent again
// after the cluster's slot map is reloaded, up to maxRedirects times.
func sendRedeemWait(ctx context.Context, rdb redis.UniversalClient, todo []prepared, w Wait, results []RedeemResult, errs []error) {
	cluster, ok := rdb.(*redis.ClusterClient)
	if !ok {
		sendRedeem(ctx, rdb, todo, w, results, errs)
		return
	}
	backoff := redirectBackoff
	for attempt := 0; len(todo) > 0; attempt++ {
		groups := map[*redis.Client][]prepared{}
		for _, p := range todo {
			node, err := cluster.MasterForKey(ctx, p.keys[0])
			if err != nil {
				errs[p.i] = err
				continue
			}
			groups[node] = append(groups[node], p)
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		var redirected []prepared
		for node, g := range groups {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := sendRedeem(ctx, node, g, w, results, errs)
				mu.Lock()
				redirected = append(redirected, r...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		if len(redirected) == 0 || attempt == maxRedirects {
			return
		}
		cluster.ReloadState(ctx)
		select {
		case <-ctx.Done():
			for _, p := range redirected {
				errs[p.i] = errors.Join(errs[p.i], ctx.Err())
			}
			return
		case <-time.After(backoff):
		}
		backoff *= 2
		todo = redirected
	}
}

// prepared is one checked call of a batch: its index in the batch, KEYS and ARGV.
type prepared struct {
	i    int
	keys []string
	args []any
}

// sendRedeem runs todo on rdb in one pipeline (a cluster client splits it by node and follows
// redirections itself), followed, when w.Replicas > 0, by WAIT on the same connection: rdb is then
// one server. A call refused with NOSCRIPT is sent again after loading the script. It returns the
// calls a cluster node redirected (MOVED, ASK, TRYAGAIN, CLUSTERDOWN), which only a WAIT pipeline
// sent to one node of a cluster meets.
func sendRedeem(ctx context.Context, rdb redis.UniversalClient, todo []prepared, w Wait, results []RedeemResult, errs []error) (redirected []prepared) {
	for attempt := 0; attempt < 2 && len(todo) > 0; attempt++ {
		if attempt > 0 {
			if err := redeem.Load(ctx, rdb).Err(); err != nil {
				for _, p := range todo {
					errs[p.i] = err
				}
				return redirected
			}
		}
		pipe := rdb.Pipeline()
		cmds := make([]*redis.Cmd, len(todo))
		for j, p := range todo {
			cmds[j] = redeem.EvalSha(ctx, pipe, p.keys, p.args...)
		}
		var wait *redis.Cmd
		if w.Replicas > 0 {
			wait = waitCmd(ctx, pipe, w)
		}
		_, _ = pipe.Exec(ctx) // each command carries its own error
		var again, replayed []prepared
		wrote := false
		for j, p := range todo {
			res, err := cmds[j].Slice()
			switch {
			case err != nil && redis.HasErrorPrefix(err, "NOSCRIPT"):
				again = append(again, p)
				errs[p.i] = err
			case err != nil && w.Replicas > 0 && redirection(err):
				redirected = append(redirected, p)
				errs[p.i] = err
			case err != nil:
				errs[p.i] = err
			default:
				results[p.i], errs[p.i] = parseRedeem(res)
				if errs[p.i] == nil && wait != nil {
					errs[p.i] = shortfall(wait, w)
					r := results[p.i]
					wrote = wrote || (r.Code == RedeemOK && !r.Replayed)
					if r.Code == RedeemOK && r.Replayed {
						replayed = append(replayed, p)
					}
				}
			}
		}
		if len(replayed) > 0 && !wrote {
			confirmReplays(ctx, rdb, replayed, w, errs)
		}
		todo = again
	}
	return redirected
}

// confirmReplays confirms on replicas the accepted claims that a pipeline which wrote nothing
// replayed. WAIT counts the replicas that acknowledged the connection's own last write; a replay
// writes nothing, so its WAIT may speak of a write older than the claim it replays (whose first
// WAIT timed out). Renewing each replayed claim's request key (EXPIRE to its TTL: the answer is
// kept that long from now) makes a write after the claim on this connection, and the WAIT after it
// covers the claim.
func confirmReplays(ctx context.Context, rdb redis.UniversalClient, replayed []prepared, w Wait, errs []error) {
	pipe := rdb.Pipeline()
	for _, p := range replayed {
		pipe.Expire(ctx, p.keys[3], time.Duration(p.args[3].(int64))*time.Second)
	}
	wait := waitCmd(ctx, pipe, w)
	_, _ = pipe.Exec(ctx)
	err := shortfall(wait, w)
	for _, p := range replayed {
		errs[p.i] = err
	}
}

// waitCmd queues WAIT w.Replicas w.Timeout (in milliseconds, at least 1: 0 would wait forever).
func waitCmd(ctx context.Context, pipe redis.Pipeliner, w Wait) *redis.Cmd {
	return pipe.Do(ctx, "WAIT", w.Replicas, max(w.Timeout.Milliseconds(), 1))
}

// shortfall is nil when wait counted at least w.Replicas replicas, else a *ReplicaShortfall.
func shortfall(wait *redis.Cmd, w Wait) error {
	n, err := wait.Int64()
	if err == nil && n >= int64(w.Replicas) {
		return nil
	}
	return &ReplicaShortfall{Acked: int(n), Want: w.Replicas, Err: err}
}

// redirection reports whether err is a cluster node's refusal to run a command on a slot it does
// not serve (now): the command did nothing and can be sent again.
func redirection(err error) bool {
	for _, p := range []string{"MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN"} {
		if redis.HasErrorPrefix(err, p) {
			return true
		}
	}
	return false
}
