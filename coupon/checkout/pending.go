package checkout

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"coupond/coupon/keys"

	"github.com/redis/go-redis/v9"
)

// clearDelay is how long a finished call's pending entry may wait to be dropped together with the
// entries of the calls that finish meanwhile (one ZREM for all of them).
const clearDelay = 5 * time.Millisecond

// pendingClears gathers the pending entries of finished calls for one ZREM.
type pendingClears struct {
	mu      sync.Mutex
	members []any
	flush   bool // a flush is scheduled
}

// markPending records a transition about to run on (order, coupon) in the pending set and returns
// its member. A call whose mark fails does not run: its after-commit work could be lost.
func (s *Service) markPending(ctx context.Context, userID, orderID, couponID int64) (string, error) {
	m := keys.PendingMember(userID, orderID, couponID, rand.Text()[:10])
	if err := s.rdb.ZAdd(ctx, keys.CheckoutPending(), redis.Z{Score: float64(s.now().UnixMilli()), Member: m}).Err(); err != nil {
		return "", fmt.Errorf("checkout: mark pending: %w", err)
	}
	return m, nil
}

// clearPending drops the pending entry of a call whose work is done, within clearDelay and in one
// ZREM with the entries of the calls that finish meanwhile; the call does not wait for it. An
// entry whose removal fails, or that a crash leaves, is replayed by the sweep (which changes
// nothing twice) and dropped then.
func (s *Service) clearPending(member string) {
	c := &s.cleared
	c.mu.Lock()
	defer c.mu.Unlock()
	c.members = append(c.members, member)
	if !c.flush {
		c.flush = true
		time.AfterFunc(clearDelay, s.flushPending)
	}
}

// flushPending drops the gathered entries in one ZREM.
func (s *Service) flushPending() {
	c := &s.cleared
	c.mu.Lock()
	members := c.members
	c.members, c.flush = nil, false
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), afterCommitTimeout)
	defer cancel()
	if err := s.rdb.ZRem(ctx, keys.CheckoutPending(), members...).Err(); err != nil {
		slog.WarnContext(ctx, "checkout: pending entries left for the sweep", "entries", len(members), "err", err)
	}
}
