package reconcile

import (
	"context"
	"fmt"
	"strconv"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/stockbatch"

	"github.com/redis/go-redis/v9"
)

// page is what one check compares beyond the template's totals: the claim counters of users, and
// the coupons of settled stock batches.
type page struct {
	users   []int64
	batches []*ent.StockBatch // SETTLED headers whose used is checked against the coupons carrying them
}

// holders returns the page of template id's stock batch headers with seq above after: up to limit
// of the users they list (template-keyed: the headers name the users their units went to, so
// nothing reads the coupons by template; a header's users are taken whole) and the settled headers
// among them, and the cursor of the next page (0 when this page reached the end). Headers are read
// 1, 2, 4, … (at most 64) at a time, so a page of a template of big distribution batches decodes
// the items of the few headers it needs, not of limit headers.
func (r *Reconciler) holders(ctx context.Context, id, after int64, limit int) (page, int64, error) {
	var pg page
	seen := map[int64]bool{}
	for n := 1; ; n = min(2*n, 64) {
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
			after = h.Seq
		}
		if len(hs) < n {
			return pg, 0, nil
		}
	}
}

// scanCounters runs this run's SCAN calls (COUNT ScanCount each) over the claim hashes, and returns
// the users they found per template; it puts the cursors to save into next (0: walked once). This
// finds counters MySQL knows nothing of (a claim Redis counted whose coupon never came).
//
// On one Redis it is one SCAN of every template's claim hashes from the cursor "scan". On a Redis
// Cluster, where a SCAN walks one node, it is one SCAN per template of page on the master owning
// the template's slot, matching only that template's claim hashes, from the cursor "s:<id>"; with
// stock shards one per shard, on the shard's slot, from "s:<id>:<shard>".
func (r *Reconciler) scanCounters(ctx context.Context, cur map[string]string, page []int64, next map[string]any) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	scan := func(node *redis.Client, field, match string) error {
		found, to, err := node.Scan(ctx, uint64(cursor(cur, field)), match, int64(r.cfg.ScanCount)).Result()
		if err != nil {
			return fmt.Errorf("scan claim counters: %w", err)
		}
		next[field] = strconv.FormatUint(to, 10)
		for _, k := range found {
			if tpl, user, ok := keys.ParseClaimCounter(k); ok {
				out[tpl] = append(out[tpl], user)
			}
		}
		return nil
	}
	cluster, ok := r.rdb.(*redis.ClusterClient)
	if !ok {
		node, ok := r.rdb.(*redis.Client)
		if !ok {
			return nil, fmt.Errorf("scan claim counters: unsupported Redis client %T", r.rdb)
		}
		return out, scan(node, "scan", keys.ClaimCounterPattern())
	}
	shards, err := r.stockShards(ctx, page)
	if err != nil {
		return nil, err
	}
	for _, id := range page {
		for i, n := 0, max(shards[id], 1); i < n; i++ {
			s := keys.StockShard(id, i, n)
			node, err := cluster.MasterForKey(ctx, s.Stock())
			if err != nil {
				return nil, fmt.Errorf("scan claim counters of %d: %w", id, err)
			}
			field := "s:" + strconv.FormatInt(id, 10)
			if n > 1 {
				field += ":" + strconv.Itoa(i)
			}
			if err := scan(node, field, s.ClaimCounterPattern()); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// stockShards returns the StockShards of the templates of page (absent ones left out).
func (r *Reconciler) stockShards(ctx context.Context, page []int64) (map[int64]int, error) {
	var rows []struct {
		ID          int64 `json:"id"`
		StockShards int   `json:"stock_shards"`
	}
	err := r.db.CouponTemplate.Query().Where(coupontemplate.IDIn(page...)).
		Select(coupontemplate.FieldID, coupontemplate.FieldStockShards).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("stock shards of the page: %w", err)
	}
	out := make(map[int64]int, len(rows))
	for _, row := range rows {
		out[row.ID] = row.StockShards
	}
	return out, nil
}

// cursor reads one field of the reconciliation's cursors (0 when unset or unreadable).
func cursor(fields map[string]string, name string) int64 {
	n, _ := strconv.ParseInt(fields[name], 10, 64)
	return n
}
