package reconcile

import (
	"context"
	"fmt"
	"strconv"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/stockbatch"
)

// page is what one check compares beyond the template's totals: the claim counters of users, and
// the coupons of settled stock batches.
type page struct {
	users   []int64
	batches []*ent.StockBatch // SETTLED headers whose used is checked against the coupons carrying them
}

// holdersFirstQuery is how many headers holders reads in its first query; each next query reads
// twice as many. A distribution header lists up to a batch of users (5,000 by default), so the
// first query alone fills a page, while a page of sync claims' small headers takes a few queries:
// reading limit headers at once decoded up to limit distribution lists (hundreds of MB in a
// worker, for a page of limit users).
const holdersFirstQuery = 8

// holders returns the page of template id's stock batch headers with seq above after: up to limit
// of the users they list (template-keyed: the headers name the users their units went to, so
// nothing reads the coupons by template) and the settled headers among them, and the cursor of
// the next page (0 when this page reached the end). It reads the headers in seq order, in queries
// of holdersFirstQuery headers and then twice as many each time, until the page is full.
func (r *Reconciler) holders(ctx context.Context, id, after int64, limit int) (page, int64, error) {
	var pg page
	seen := map[int64]bool{}
	for n := holdersFirstQuery; ; n = min(2*n, max(limit, holdersFirstQuery)) {
		hs, err := r.db.StockBatch.Query().Where(stockbatch.TemplateID(id), stockbatch.SeqGT(after)).
			Order(stockbatch.BySeq()).Limit(n).All(ctx)
		if err != nil {
			return pg, 0, fmt.Errorf("holders of %d: %w", id, err)
		}
		for _, h := range hs {
			if h.State == stockbatch.StateSETTLED {
				pg.batches = append(pg.batches, h)
			}
			for _, it := range h.Items {
				if !seen[it.User] {
					seen[it.User] = true
					pg.users = append(pg.users, it.User)
				}
			}
			if len(pg.users) >= limit {
				return pg, h.Seq, nil
			}
		}
		if len(hs) < n {
			return pg, 0, nil
		}
		after = hs[len(hs)-1].Seq
	}
}

// scanCounters runs one SCAN call (COUNT ScanCount) over the claim hashes from cursor, and returns
// the users it found per template and the next cursor (0: the keyspace was walked once). This
// finds counters MySQL knows nothing of (a claim Redis counted whose coupon never came).
func (r *Reconciler) scanCounters(ctx context.Context, cursor uint64) (map[int64][]int64, uint64, error) {
	found, next, err := r.rdb.Scan(ctx, cursor, keys.ClaimCounterPattern(), int64(r.cfg.ScanCount)).Result()
	if err != nil {
		return nil, 0, fmt.Errorf("scan claim counters: %w", err)
	}
	out := map[int64][]int64{}
	for _, k := range found {
		if tpl, user, ok := keys.ParseClaimCounter(k); ok {
			out[tpl] = append(out[tpl], user)
		}
	}
	return out, next, nil
}

// cursor reads one field of the reconciliation's cursors (0 when unset or unreadable).
func cursor(fields map[string]string, name string) int64 {
	n, _ := strconv.ParseInt(fields[name], 10, 64)
	return n
}
