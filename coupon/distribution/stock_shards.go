package distribution

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/lua"
)

// Stock shards (README "Hot templates"): a template created with N > 1 stock shards keeps its
// Redis stock in N sub-stocks, each on its own slot, and its users' claim counters on their
// shard's slot. A batch is deducted per shard: its candidates grouped by their user's shard, one
// distribute.lua call per group on that shard's keys, each journaling the group's rows in the
// shard's journal of the task. A group short of stock borrows from the reserve and the other
// shards first (deductShard), so a row is refused OUT_OF_STOCK only once nothing is left to borrow.
// The batch's after-commit script runs on each shard holding a journal of it. With N = 1 the one
// shard's keys are the template's own.

// stockShards are the stock shards of a task's template.
type stockShards struct {
	template int64
	n        int // ≥ 1
}

// stockShardsOf reads the stock shards of task t's template (a column that never changes).
func (s *Service) stockShardsOf(ctx context.Context, t *ent.CouponTask) (stockShards, error) {
	n, err := s.db.CouponTemplate.Query().Where(coupontemplate.ID(t.TemplateID), coupontemplate.ShopNumber(t.ShopNumber)).
		Select(coupontemplate.FieldStockShards).Int(ctx)
	if err != nil {
		return stockShards{}, fmt.Errorf("stock shards of template %d: %w", t.TemplateID, err)
	}
	return stockShards{template: t.TemplateID, n: max(n, 1)}, nil
}

// shard is stock shard i.
func (ss stockShards) shard(i int) keys.Shard { return keys.StockShard(ss.template, i, ss.n) }

// maxShortfalls bounds the borrowing rounds of one shard's deduction (each a shortfall answered by
// the script, then borrows): a safety bound against claims that keep emptying the shard under it,
// far above what one batch takes (each round borrows every unit the shard is short, 64 a borrow).
const maxShortfalls = 64

// deduct runs the deduction script for the batch's candidates: one call per stock shard with
// candidates, on that shard's keys (deductShard). It returns the outcomes in the order of
// b.candidates and the shards it journaled the batch on, in order.
func (s *Service) deduct(ctx context.Context, taskID int64, ss stockShards, b batch) ([]lua.DistributeOutcome, []int, error) {
	groups := make([][]int, ss.n) // shard → indexes into b.candidates
	for i, c := range b.candidates {
		g := keys.UserShard(c.UserID, ss.n)
		groups[g] = append(groups[g], i)
	}
	out := make([]lua.DistributeOutcome, len(b.candidates))
	var shards []int
	for shard, idx := range groups {
		if len(idx) == 0 {
			continue
		}
		rows := make([]lua.DistributeRow, len(idx))
		for k, i := range idx {
			rows[k] = b.candidates[i]
		}
		got, err := s.deductShard(ctx, taskID, ss.shard(shard), b.start, rows)
		if err != nil {
			return nil, nil, err
		}
		for k, i := range idx {
			out[i] = got[k]
		}
		shards = append(shards, shard)
		s.stepDone("shard deducted")
	}
	return out, shards, nil
}

// deductShard runs the deduction script for rows, all of users of stock shard sh, reloading the
// template cache once when it is missing. On a template with stock shards the script first runs
// borrowing: a stock short of the rows is answered with the units missing, which are borrowed
// (borrow) before it runs again; once a borrow found nothing left anywhere (or after
// maxShortfalls rounds) it runs without, and the rows beyond the stock are OUT_OF_STOCK. A replay
// (the shard's journal holds the batch) returns the journaled outcomes.
func (s *Service) deductShard(ctx context.Context, taskID int64, sh keys.Shard, start int, rows []lua.DistributeRow) ([]lua.DistributeOutcome, error) {
	k := lua.DistributeKeys{
		Template: sh.Stock(),
		Journal:  sh.DistributionJournal(taskID),
		Journals: sh.DistributionJournals(),
		Claims:   sh.ClaimCounter,
	}
	borrowing, reloaded, shortfalls := sh.Count > 1, false, 0
	for {
		res, err := lua.Distribute(ctx, s.rdb, k, start, s.now(), rows, borrowing)
		if err != nil {
			return nil, fmt.Errorf("deduct batch after row %d on stock shard %d: %w", start, sh.Index, err)
		}
		switch {
		case res.Status == lua.DistributeDeducted || res.Status == lua.DistributeReplayed:
			return res.Outcomes, nil
		case res.Status == lua.DistributeCacheMissing && !reloaded:
			reloaded = true
			if _, err := s.cache.Get(ctx, sh.Template); err != nil {
				return nil, fmt.Errorf("reload template %d: %w", sh.Template, err)
			}
		case res.Status == lua.DistributeShort:
			got, err := s.borrow(ctx, sh, res.Short)
			if err != nil {
				return nil, err
			}
			if shortfalls++; got < res.Short || shortfalls == maxShortfalls {
				borrowing = false // nothing more to borrow: the next run refuses the rows beyond the stock
			}
		default:
			return nil, fmt.Errorf("deduct batch after row %d on stock shard %d: script status %d", start, sh.Index, res.Status)
		}
	}
}

// borrow moves up to want units into stock shard sh's sub-stock (template.Cache.Borrow, called
// until it has received want or answers 0, then template.Cache.BorrowLast: nothing left in the
// reserve, any other shard or a lend in transit). It returns the units received (more than want
// when the last borrow brought more).
func (s *Service) borrow(ctx context.Context, sh keys.Shard, want int) (int, error) {
	got := 0
	for got < want {
		n, err := s.cache.Borrow(ctx, sh.Template, sh.Index, sh.Count)
		if err == nil && n == 0 {
			n, err = s.cache.BorrowLast(ctx, sh.Template, sh.Index, sh.Count)
		}
		if err != nil {
			return got, fmt.Errorf("borrow stock for shard %d of template %d: %w", sh.Index, sh.Template, err)
		}
		if n == 0 {
			break
		}
		got += n
	}
	return got, nil
}

// batchJournal is a batch in flight as its journals hold it: one journal per stock shard with
// rows of the batch's users.
type batchJournal struct {
	start  int
	shards []int            // the shards holding a journal of the batch, in order
	rows   []lua.JournalRow // every journal's rows, by row number
}

// journals returns the task's batches in flight (journaled on any of the stock shards), by start.
func (s *Service) journals(ctx context.Context, taskID int64, ss stockShards) ([]*batchJournal, error) {
	byStart := map[int]*batchJournal{}
	for i := range ss.n {
		js, err := lua.ReadJournals(ctx, s.rdb, ss.shard(i).DistributionJournal(taskID))
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			b := byStart[j.Start]
			if b == nil {
				b = &batchJournal{start: j.Start}
				byStart[j.Start] = b
			}
			b.shards = append(b.shards, i)
			b.rows = append(b.rows, j.Rows...)
		}
	}
	out := make([]*batchJournal, 0, len(byStart))
	for _, b := range byStart {
		slices.SortFunc(b.rows, func(x, y lua.JournalRow) int { return cmp.Compare(x.Row, y.Row) })
		out = append(out, b)
	}
	slices.SortFunc(out, func(x, y *batchJournal) int { return cmp.Compare(x.start, y.start) })
	return out, nil
}
