package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// outboxes are the template's outbox streams: its own, and its stock shards' in a lend scenario.
func (w *world) outboxes(templateID int64) []string {
	out := []string{fmt.Sprintf("{t%d}:outbox", templateID)}
	if w.shards != nil {
		for _, t := range w.shards.tags {
			out = append(out, t+":outbox")
		}
	}
	return out
}

// claimCounter is user u's claim hash on the template (on the user's stock shard in a lend
// scenario; "" when the user's shard is unknown).
func (w *world) claimCounter(templateID int64, u int) string {
	if w.shards == nil {
		return fmt.Sprintf("{t%d}:u:%d", templateID, u)
	}
	if i, ok := w.shards.userShard[u]; ok && i < len(w.shards.tags) {
		return fmt.Sprintf("%s:u:%d", w.shards.tags[i], u)
	}
	return ""
}

// waitQuiet waits until the template's outboxes are empty (XLEN 0 and nothing pending in their
// consumer groups) and the number of user_coupon rows has not changed for 2 s. It returns the time
// from the call to the start of that quiet period, or max and false when it never came.
func (w *world) waitQuiet(ctx context.Context, templateID int64, max time.Duration) (time.Duration, bool) {
	start := time.Now()
	lastRows := -1
	var quietSince time.Time
	for time.Since(start) < max+2*time.Second {
		var xlen, pending int64
		var err1, err2 error
		for _, outbox := range w.outboxes(templateID) {
			n, err := w.data.XLen(ctx, outbox).Result()
			p, errp := xpending(ctx, w.data, outbox)
			xlen, pending = xlen+n, pending+p
			err1, err2 = errors.Join(err1, err), errors.Join(err2, errp)
		}
		var rows int
		err3 := w.my.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM coupond.user_coupon WHERE template_id = ?", templateID).Scan(&rows)
		now := time.Now()
		quiet := err1 == nil && err2 == nil && err3 == nil && xlen == 0 && pending == 0
		if !quiet || rows != lastRows {
			quietSince = time.Time{}
		}
		if quiet && quietSince.IsZero() {
			quietSince = now
		}
		lastRows = rows
		if !quietSince.IsZero() && now.Sub(quietSince) >= 2*time.Second {
			if d := quietSince.Sub(start); d <= max {
				return d, true
			}
			break
		}
		select {
		case <-ctx.Done():
			return max, false
		case <-time.After(100 * time.Millisecond):
		}
	}
	return max, false
}

// xpending is the number of delivered, unacknowledged entries of the stream's consumer groups
// (0 when the stream or group does not exist).
func xpending(ctx context.Context, rdb redis.UniversalClient, stream string) (int64, error) {
	groups, err := rdb.XInfoGroups(ctx, stream).Result()
	if err != nil {
		if strings.Contains(err.Error(), "no such key") || errors.Is(err, redis.Nil) {
			return 0, nil
		}
		return 0, err
	}
	var n int64
	for _, g := range groups {
		n += g.Pending
	}
	return n, nil
}

// books is the state of one template after a scenario, checked against what clients were told.
type books struct {
	accepted     int // distinct redemption ids clients were given
	rows         int // user_coupon rows of the template
	failed       int // accepted ids with a redemption_failure row
	lost         int // accepted ids neither a row nor a failure
	lostFailed   int // accepted ids failed as lost in a storage failure (coupon.ReasonLost)
	unresolved   int // accepted ids redemption(id) does not show as ISSUED with a coupon or FAILED with a reason (and no row)
	dbLeak       int // total_stock - stock - rows in MySQL (≠ 0: stock leaked or invented)
	redisLeak    int // total - (hash stock + outboxes + rows) when the hash exists; stock shards: + theirs and the lends not received
	hashMissing  bool
	oversold     int // rows beyond total_stock, plus negative MySQL stock
	overLimit    int // users holding more than limitPerPerson rows
	limitsHigh   int // users whose Redis counter n is above their rows (leaked limit)
	limitsLow    int // users whose counter is below their rows (a repeated claim would get through)
	examples     []string
	dbStock      int
	redisStock   int64
	redisPending int64
}

// takeBooks reads MySQL and Redis for the template and compares them with the burst's answers.
func (w *world) takeBooks(ctx context.Context, templateID int64, limit int, b *burst, tokens []string) (*books, error) {
	bk := &books{}
	var total int
	if err := w.my.db.QueryRowContext(ctx, "SELECT total_stock, stock FROM coupond.coupon_template WHERE id = ?", templateID).Scan(&total, &bk.dbStock); err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	issued := map[string]bool{}
	perUser := map[int]int{}
	rows, err := w.my.db.QueryContext(ctx, "SELECT redemption_id, user_id FROM coupond.user_coupon WHERE template_id = ?", templateID)
	if err != nil {
		return nil, fmt.Errorf("read coupons: %w", err)
	}
	for rows.Next() {
		var rid string
		var user int
		if err := rows.Scan(&rid, &user); err != nil {
			rows.Close()
			return nil, err
		}
		issued[rid] = true
		perUser[user]++
	}
	rows.Close()
	bk.rows = len(issued)
	failed := map[string]bool{}
	lostFailed := map[string]bool{} // failed as lost in a storage failure
	frows, err := w.my.db.QueryContext(ctx, "SELECT redemption_id, reason FROM coupond.redemption_failure WHERE template_id = ? AND reason <> ''", templateID)
	if err != nil {
		return nil, fmt.Errorf("read failures: %w", err)
	}
	for frows.Next() {
		var rid, reason string
		if err := frows.Scan(&rid, &reason); err != nil {
			frows.Close()
			return nil, err
		}
		failed[rid] = true
		lostFailed[rid] = strings.Contains(reason, "lost in a storage failure")
	}
	frows.Close()

	owner := map[string]int{} // accepted redemption id → user
	for _, cl := range b.calls {
		for _, a := range cl.answers {
			if a.accepted() {
				owner[a.RedemptionID] = cl.user
			}
		}
	}
	bk.accepted = len(owner)
	for rid := range owner {
		switch {
		case issued[rid]:
		case failed[rid]:
			bk.failed++
			if lostFailed[rid] {
				bk.lostFailed++
			}
		default:
			bk.lost++
			if len(bk.examples) < 2 {
				bk.examples = append(bk.examples, "lost "+rid)
			}
		}
	}
	var unresolved []string
	bk.unresolved, unresolved = w.checkRedemptions(ctx, owner, issued, tokens, b.plan.concurrency)
	bk.examples = append(bk.examples, unresolved...)

	bk.dbLeak = total - bk.dbStock - bk.rows
	bk.oversold = max(0, bk.rows-total) + max(0, -bk.dbStock)
	for _, n := range perUser {
		if n > limit {
			bk.overLimit++
		}
	}

	stock, err := w.data.HGet(ctx, fmt.Sprintf("{t%d}:tpl", templateID), "stock").Int64()
	switch {
	case errors.Is(err, redis.Nil):
		bk.hashMissing = true
	case err != nil:
		return nil, fmt.Errorf("read hash: %w", err)
	}
	if w.shards != nil && !bk.hashMissing { // the reserve, plus the shards and the lends in transit
		if stock, err = w.shards.redisStock(ctx, w, templateID); err != nil {
			return nil, err
		}
	}
	for _, outbox := range w.outboxes(templateID) {
		n, err := w.data.XLen(ctx, outbox).Result()
		if err != nil {
			return nil, fmt.Errorf("read outbox: %w", err)
		}
		bk.redisPending += n
	}
	if !bk.hashMissing {
		bk.redisStock = stock
		bk.redisLeak = total - int(stock) - int(bk.redisPending) - bk.rows
	}
	pipe := w.data.Pipeline()
	counters := map[int]*redis.StringCmd{}
	for _, u := range b.plan.who() {
		if k := w.claimCounter(templateID, u); k != "" {
			counters[u] = pipe.HGet(ctx, k, "n")
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read counters: %w", err)
	}
	for u, c := range counters {
		n, err := c.Int()
		if err != nil {
			continue // no hash: nothing to compare
		}
		switch {
		case n > perUser[u]:
			bk.limitsHigh++
		case n < perUser[u]:
			bk.limitsLow++
		}
	}
	return bk, nil
}

// checkRedemptions asks redemption(id) for every accepted id as its owner and counts the answers
// that are not final (ISSUED with a coupon or FAILED with a reason) or say FAILED for a coupon
// MySQL holds, with up to two examples.
func (w *world) checkRedemptions(ctx context.Context, owner map[string]int, issued map[string]bool, tokens []string, concurrency int) (int, []string) {
	type item struct {
		rid  string
		user int
	}
	work := make(chan item)
	var mu sync.Mutex
	bad := 0
	var examples []string
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				st, err := w.gql.redemptionStatus(ctx, tokens[it.user-1], it.rid)
				// ISSUED without a row of its own is the coupon of an earlier claim with the same
				// requestId; FAILED while MySQL holds its coupon contradicts the books.
				if err == nil && (st == "ISSUED" || (st == "FAILED" && !issued[it.rid])) {
					continue
				}
				mu.Lock()
				bad++
				if len(examples) < 2 {
					examples = append(examples, fmt.Sprintf("redemption(%s) = %q (err %v), coupon row in MySQL: %v", it.rid, st, err, issued[it.rid]))
				}
				mu.Unlock()
			}
		}()
	}
	for rid, u := range owner {
		work <- item{rid, u}
	}
	close(work)
	wg.Wait()
	return bad, examples
}
