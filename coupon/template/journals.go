package template

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/lua"
)

// inFlight is one distribution batch in flight: its journal and the rows distribute.lua accepted,
// each holding a unit of the cached stock until the batch's after-commit work is done.
type inFlight struct {
	key      string
	task     int64
	start    int
	accepted []lua.JournalRow
}

// distributions returns the template's distribution batches in flight: the journals in the
// hashes named in the journal set of each of its n stock shards (keys.Shard.DistributionJournals;
// with one shard, the template's own), one entry per batch and shard, sorted by hash key, then
// start.
func (c *Cache) distributions(ctx context.Context, id int64, n int) ([]inFlight, error) {
	var out []inFlight
	for i := range n {
		s := keys.StockShard(id, i, n)
		members, err := c.rdb.SMembers(ctx, s.DistributionJournals()).Result()
		if err != nil {
			return nil, fmt.Errorf("read distribution journals of %d shard %d: %w", id, i, err)
		}
		for _, k := range members {
			task, ok := s.DistributionJournalTask(k)
			if !ok {
				continue
			}
			js, err := lua.ReadJournals(ctx, c.rdb, k) // none: done (the after-commit script removes the last journal and the set entry together)
			if err != nil {
				return nil, err
			}
			for _, j := range js {
				b := inFlight{key: k, task: task, start: j.Start}
				for _, r := range j.Rows {
					if r.Code == lua.DistributeOK {
						b.accepted = append(b.accepted, r)
					}
				}
				out = append(out, b)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b inFlight) int {
		return cmp.Or(strings.Compare(a.key, b.key), a.start-b.start)
	})
	return out, nil
}

// sameBatches reports whether a and b name the same batches (journal and start).
func sameBatches(a, b []inFlight) bool {
	return slices.EqualFunc(a, b, func(x, y inFlight) bool { return x.key == y.key && x.start == y.start })
}

// acceptedRows returns the rows distribute.lua accepted in the batches in flight, as references
// to their coupons. Each holds a unit of the cached stock until MySQL holds its coupon: rows of a
// batch not committed yet, and rows MySQL refused whose unit the batch's settlement gives back (a
// refusal for want of stock drops the hash instead, for another rebuild).
func acceptedRows(batches []inFlight) []issue.Ref {
	var out []issue.Ref
	for _, b := range batches {
		for _, r := range b.accepted {
			out = append(out, issue.Ref{User: r.UserID, RedemptionID: issue.DistributionRedemptionID(b.task, r.Row)})
		}
	}
	return out
}
