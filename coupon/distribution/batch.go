package distribution

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"coupond/coupon"
	"coupond/coupon/issue"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontask"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/lua"
)

// batch is up to BatchSize data rows following the resume position start.
type batch struct {
	start int   // the task's resume position before the batch
	end   int   // the last row's number: the resume position after it
	rows  []Row // in file order
	// candidates are the rows with a valid id not seen before in the file (the rest fail
	// INVALID_USER_ID or DUPLICATE_IN_FILE); the deduction script decides them.
	candidates []lua.DistributeRow
	// fail, when set, makes this the last batch: the task ends FAILED with this reason once its
	// rows (if any) are committed (the file cannot be read further, or passes the row cap).
	fail string
}

// rowOutcome is what became of one row.
type rowOutcome struct {
	row    Row
	code   string // "" issued
	reason string
}

// pending is a batch on its way: deducted, then reserved (its T1), written (its T2s), settled
// (its T3 and after-commit work).
type pending struct {
	b        batch
	ss       stockShards             // the template's stock shards
	deducted []lua.DistributeOutcome // the deduction script's outcomes, in the order of b.candidates
	shards   []int                   // the stock shards the batch is journaled on
	task     *ent.CouponTask         // as T1 left it (or found it: a replay)
	res      *issue.Reservation      // nil: an earlier run reserved the batch (replay)
	items    []issue.Item            // the coupons the accepted rows ask for
	groups   []group                 // the items by user shard, their coupons made ahead (after T1)
	rows     map[string]Row          // the accepted rows by redemption id
	outcomes []rowOutcome            // the failures decided before MySQL
	written  *written                // what its T2s did
	settled  *commitResult           // a replay's: writeBatch finished or read back its T3
	began    time.Time
}

// deductBatch is the first step of one batch, exactly once whatever crashes: the deduction
// script on each stock shard of ss with rows of the batch (deduct; a replay returns the journaled
// outcome). reserveBatch does the next.
func (s *Service) deductBatch(ctx context.Context, t *ent.CouponTask, ss stockShards, b batch) (*pending, error) {
	p := &pending{b: b, ss: ss, began: time.Now()}
	if len(b.candidates) > 0 {
		var err error
		if p.deducted, p.shards, err = s.deduct(ctx, t.ID, ss, b); err != nil {
			return nil, err
		}
	}
	s.stepDone("deducted")
	return p, nil
}

// reserveBatch is a deducted batch's T1, exactly once (a batch already reserved is recognised by
// the task's resume position and not reserved again); writeBatch and settleBatch do the rest. A T1 put off
// because the template's stock is short while a batch is open (issue.ErrBusy: possibly this
// task's previous batch, still being written) waits for the previous batch (settle) and is tried
// once more.
func (s *Service) reserveBatch(ctx context.Context, t *ent.CouponTask, p *pending, settle func() error) error {
	s.stepDone("reserving")
	err := s.reserve(ctx, t, p, p.deducted)
	if errors.Is(err, issue.ErrBusy) {
		if err = settle(); err == nil {
			err = s.reserve(ctx, t, p, p.deducted)
		}
	}
	if err != nil {
		return err
	}
	if p.res != nil {
		if p.groups, err = s.prepareWrites(p.res, p.items); err != nil {
			return err
		}
	}
	s.stepDone("reserved")
	return nil
}

// writeBatch is a reserved batch's T2s (writeCoupons); a batch an earlier run reserved (p.res
// nil) has everything left of its writes and T3 done here, or read back (replay).
func (s *Service) writeBatch(ctx context.Context, p *pending) error {
	if p.res == nil {
		res, err := s.replay(ctx, p.task, p.ss, p.b, p.items, p.rows)
		p.settled = &res
		return err
	}
	w, err := s.writeCoupons(ctx, p.res, p.groups, p.rows)
	p.written = w
	return err
}

// settleBatch finishes a written batch: its T3 (settle; done already for a replay), then the
// after-commit work.
func (s *Service) settleBatch(ctx context.Context, p *pending) error {
	res := commitResult{task: p.task, outcomes: p.outcomes}
	if p.settled != nil {
		res = *p.settled
	} else {
		var err error
		if res.task, err = s.settle(ctx, p.res, p.written); err != nil {
			return err
		}
		res.plan = p.written.plan
	}
	s.stepDone("committed")
	if len(p.b.candidates) > 0 {
		if err := s.afterCommit(ctx, res.task, p.ss, p.b.start, p.shards, res.plan); err != nil {
			return err
		}
	}
	s.stepDone("after-commit")
	observeBatch(res, time.Since(p.began))
	s.announce(ctx, p.task.ID)
	return nil
}

// afterCommitPlan is what Redis gets back once a batch is committed.
type afterCommitPlan struct {
	freed   []int64           // users of rows MySQL refused for want of a slot: the row's stock unit and counter go back
	drifted []int64           // users of rows MySQL refused for want of stock Redis had shown: the counter goes back
	issued  []*ent.UserCoupon // the batch's coupons (expiry buckets, stats)
}

// commitResult is a batch whose T3 is done.
type commitResult struct {
	task     *ent.CouponTask
	plan     afterCommitPlan
	outcomes []rowOutcome
	replayed bool // settled by an earlier run; nothing written now
}

// maxRowsPerInsert keeps one INSERT under MySQL's 65,535 placeholders.
const maxRowsPerInsert = 2000

// errReplayed stops a T1 that found the task's resume position past the batch's start.
var errReplayed = errors.New("the batch was reserved by an earlier run")

// reserve is the batch's T1 (coupon/issue), exactly once: under the task row's lock it
// recognises a batch whose start is not the task's resume position as reserved before (a replay:
// p.res stays nil, p.task is the task as it is); otherwise it records the rows that failed before
// MySQL (invalid, repeated, refused by the script), moves the task's resume position and
// processed rows past the batch, and reserves a unit for each row the script accepted under an
// OPEN header (p.res, p.task as T1 left it).
func (s *Service) reserve(ctx context.Context, t *ent.CouponTask, p *pending, out []lua.DistributeOutcome) error {
	b := p.b
	accepted, outcomes := decide(b, out)
	p.items, p.rows = s.items(t, accepted)
	p.outcomes = outcomes
	var task *ent.CouponTask
	r, err := issue.Reserve(ctx, s.db, issue.ReserveSpec{TemplateID: t.TemplateID, ShopNumber: t.ShopNumber, Source: stockbatch.SourceDISTRIBUTION,
		Items: p.items, TaskID: &t.ID, TaskStart: &b.start,
		Prepare: func(ctx context.Context, tx *ent.Tx) error {
			cur, err := lockTask(ctx, tx, t)
			if err != nil {
				return err
			}
			if cur.ResumeRow != b.start {
				task = cur
				return errReplayed
			}
			fails, err := insertFailures(ctx, tx, t, outcomes)
			if err != nil {
				return err
			}
			task, err = updateTask(ctx, tx, t, func(u *ent.CouponTaskUpdate) {
				u.AddProcessedRows(len(b.rows)).AddFailCount(fails).SetResumeRow(b.end)
			})
			return err
		}})
	switch {
	case errors.Is(err, errReplayed):
		p.task = task
		return nil
	case err != nil:
		return err
	}
	p.task, p.res = task, r
	return nil
}

// lockTask locks task t's row (named by its shard key too) in tx and returns it as it is. A
// batch's T1 and T3 both lock it before the template row, so the next batch's T1 and this one's
// T3, which run at the same time, cannot deadlock.
func lockTask(ctx context.Context, tx *ent.Tx, t *ent.CouponTask) (*ent.CouponTask, error) {
	cur, err := tx.CouponTask.Query().Where(coupontask.ID(t.ID), coupontask.ShopNumber(t.ShopNumber)).ForUpdate().Only(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock task %d: %w", t.ID, err)
	}
	return cur, nil
}

// items are the coupons the accepted rows ask for, with redemption ids derived from (task, row),
// and the rows by redemption id.
func (s *Service) items(t *ent.CouponTask, accepted []candidate) ([]issue.Item, map[string]Row) {
	now := s.now().UTC().Truncate(time.Millisecond) // as MySQL keeps it: the ledger buckets the same instant (coupon/ledger)
	items := make([]issue.Item, len(accepted))
	rows := make(map[string]Row, len(accepted))
	for i, c := range accepted {
		rid := issue.DistributionRedemptionID(t.ID, c.row.Num)
		items[i] = issue.Item{Coupon: issue.Coupon{UserID: c.row.UserID, TemplateID: t.TemplateID,
			RedemptionID: rid, ReceiveCount: c.rc, Source: usercoupon.SourceDISTRIBUTION, At: now}, Epoch: c.epoch}
		rows[rid] = c.row
	}
	return items, rows
}

// replay finishes a batch whose T1 an earlier run committed: its header still OPEN (the run died
// before T3) is finished now; a SETTLED one has its after-commit plan read back from the journals
// left on the stock shards of ss and MySQL.
func (s *Service) replay(ctx context.Context, t *ent.CouponTask, ss stockShards, b batch, items []issue.Item, rows map[string]Row) (commitResult, error) {
	res := commitResult{task: t, replayed: true}
	h, err := s.db.StockBatch.Query().Where(stockbatch.ShopNumber(t.ShopNumber), stockbatch.TaskID(t.ID), stockbatch.TaskStart(b.start)).Only(ctx)
	if err != nil {
		return res, fmt.Errorf("stock batch of task %d after row %d: %w", t.ID, b.start, err)
	}
	if h.State == stockbatch.StateOPEN {
		r, err := issue.Resume(ctx, s.db, h)
		if err != nil {
			return res, err
		}
		res.plan, res.task, err = s.finishBatch(ctx, r, items, rows)
		return res, err
	}
	if len(b.candidates) == 0 {
		return res, nil
	}
	js, err := s.journals(ctx, t.ID, ss)
	if err != nil {
		return res, err
	}
	for _, j := range js {
		if j.start == b.start {
			res.plan, err = s.planFromDB(ctx, t, j.rows)
			return res, err
		}
	}
	return res, nil // after-commit work done already (or none to do)
}

// finishBatch does a reserved batch's T2s and T3 (writeCoupons, settle). It returns the
// after-commit plan and the task as settled; a header settled meanwhile by another run is read
// back as it is.
func (s *Service) finishBatch(ctx context.Context, r *issue.Reservation, items []issue.Item, rows map[string]Row) (afterCommitPlan, *ent.CouponTask, error) {
	groups, err := s.prepareWrites(r, items)
	if err != nil {
		return afterCommitPlan{}, nil, err
	}
	w, err := s.writeCoupons(ctx, r, groups, rows)
	if err != nil {
		return afterCommitPlan{}, nil, err
	}
	task, err := s.settle(ctx, r, w)
	return w.plan, task, err
}

// group is the items of a batch on one user shard (one T2), their coupons made ahead.
type group struct {
	items    []issue.Item
	prepared *issue.Prepared
}

// prepareWrites sets the items' validity end from the template as T1 locked it, groups them by
// user shard and makes each group's coupons ahead of its T2 (issue.Prepare): the run does it
// beside the previous batch's writes, so a T2 only sends its coupons.
func (s *Service) prepareWrites(r *issue.Reservation, items []issue.Item) ([]group, error) {
	tpl := r.Template
	for i := range items {
		items[i].End = issue.End(tpl.ConsumeRule.ValidityHours, tpl.ValidEndTime, items[i].At)
	}
	var groups []group
	for _, g := range issue.Groups(items, s.cfg.UserShards) {
		p, err := issue.Prepare(r, g, s.cfg.Vitess)
		if err != nil {
			return nil, err
		}
		groups = append(groups, group{items: g, prepared: p})
	}
	return groups, nil
}

// written is what a batch's T2s did, for its T3.
type written struct {
	plan    afterCommitPlan
	carried []time.Time  // the coupons' creation instants (issue.Settlement.Carried)
	refused []rowOutcome // the rows MySQL refused
	drifted int          // of them, for want of stock Redis had shown
}

// writeCoupons does a reserved batch's T2s, one per user-shard group (prepareWrites): free
// receive_count slots, coupons within the units reserved.
func (s *Service) writeCoupons(ctx context.Context, r *issue.Reservation, groups []group, rows map[string]Row) (*written, error) {
	out := &written{}
	budget := r.Header.Reserved
	for _, g := range groups {
		w, err := issue.Write(ctx, s.db, r, g.items, budget, issue.WriteOptions{Vitess: s.cfg.Vitess, OneUserShard: s.cfg.UserShards <= 1, Prepared: g.prepared})
		if err != nil {
			return nil, fmt.Errorf("write coupons of batch %d: %w", r.Header.ID, err)
		}
		budget -= len(w.Carried)
		out.carried = append(out.carried, w.Carried...)
		out.drifted += w.Drifted
		out.plan.issued = append(out.plan.issued, w.Issued...)
		for _, f := range w.Refused {
			o := rowOutcome{row: rows[f.RedemptionID], code: CodeOutOfStock, reason: "the template's stock ran out"}
			if f.Reason == coupon.ReasonLimitReached {
				o.code, o.reason = CodeLimitReached, "the user already holds as many coupons of this template as one person may"
				out.plan.freed = append(out.plan.freed, f.UserID)
			} else {
				out.plan.drifted = append(out.plan.drifted, f.UserID)
			}
			out.refused = append(out.refused, o)
		}
		s.stepDone("written")
	}
	return out, nil
}

// settle is a written batch's T3: the unused units given back, the rows MySQL refused recorded as
// failures (LIMIT_REACHED, or OUT_OF_STOCK for drift, audited), and the task's counters. It
// returns the task as settled; a header settled meanwhile by another run is read back as it is.
func (s *Service) settle(ctx context.Context, r *issue.Reservation, w *written) (*ent.CouponTask, error) {
	taskID := *r.Header.TaskID
	t := &ent.CouponTask{ID: taskID, ShopNumber: r.Header.ShopNumber}
	var task *ent.CouponTask
	err := issue.Settle(ctx, s.db, r.Header, issue.Settlement{Carried: w.carried,
		First: func(ctx context.Context, tx *ent.Tx) error {
			_, err := lockTask(ctx, tx, t)
			return err
		},
		Finish: func(ctx context.Context, tx *ent.Tx, tpl *ent.CouponTemplate) error {
			if w.drifted > 0 { // Redis took stock MySQL does not have
				err := template.WriteAudit(ctx, tx, template.AuditEntry{Shop: tpl.ShopNumber, TemplateID: tpl.ID,
					ActorRole: template.ActorSystem, Action: template.ActionStockDrift,
					Before: map[string]any{"databaseStock": tpl.Stock}, After: map[string]any{"failedRows": w.drifted, "taskId": strconv.FormatInt(taskID, 10)}})
				if err != nil {
					return err
				}
			}
			fails, err := insertFailures(ctx, tx, t, w.refused)
			if err != nil {
				return err
			}
			task, err = updateTask(ctx, tx, t, func(u *ent.CouponTaskUpdate) { u.AddSuccessCount(len(w.carried)).AddFailCount(fails) })
			return err
		}})
	if errors.Is(err, issue.ErrSettled) {
		task, err = s.db.CouponTask.Query().Where(coupontask.ID(taskID), coupontask.ShopNumber(t.ShopNumber)).Only(ctx)
	}
	return task, err
}

// candidate is a row the deduction script accepted, with its receive_count.
type candidate struct {
	row   Row
	rc    int
	epoch int64 // the template hash's epoch when its unit was taken (issue.Item.Epoch)
}

// decide splits the batch by the script's outcomes: accepted rows, and the failures decided so far.
func decide(b batch, out []lua.DistributeOutcome) ([]candidate, []rowOutcome) {
	var accepted []candidate
	var fails []rowOutcome
	i := 0
	for _, r := range b.rows {
		switch {
		case r.Code != "":
			fails = append(fails, rowOutcome{row: r, code: r.Code, reason: r.Reason})
			continue
		}
		o := out[i]
		i++
		switch o.Code {
		case lua.DistributeOK:
			accepted = append(accepted, candidate{row: r, rc: o.ReceiveCount, epoch: o.Epoch})
		case lua.DistributeOutOfStock:
			fails = append(fails, rowOutcome{row: r, code: CodeOutOfStock, reason: "the template's stock ran out"})
		case lua.DistributeLimitReached:
			fails = append(fails, rowOutcome{row: r, code: CodeLimitReached, reason: "the user already holds as many coupons of this template as one person may"})
		default:
			fails = append(fails, rowOutcome{row: r, code: CodeTemplateEnded, reason: "the template had ended when the row's turn came"})
		}
	}
	return accepted, fails
}

// insertFailures inserts the failure rows of task t and returns how many.
func insertFailures(ctx context.Context, tx *ent.Tx, t *ent.CouponTask, fails []rowOutcome) (int, error) {
	for chunk := range slices.Chunk(fails, maxRowsPerInsert) {
		builders := make([]*ent.CouponTaskFailureCreate, len(chunk))
		for i, f := range chunk {
			b := tx.CouponTaskFailure.Create().SetShopNumber(t.ShopNumber).SetTaskID(t.ID).SetRowNum(f.row.Num).
				SetCode(f.code).SetReason(f.reason)
			if f.row.Raw != "" {
				b.SetUserID(f.row.Raw)
			}
			builders[i] = b
		}
		if err := tx.CouponTaskFailure.CreateBulk(builders...).Exec(ctx); err != nil {
			return 0, fmt.Errorf("insert failures: %w", err)
		}
	}
	return len(fails), nil
}

// updateTask applies set to task t's row, named by its shard key too, and returns the row as it is then.
func updateTask(ctx context.Context, tx *ent.Tx, t *ent.CouponTask, set func(*ent.CouponTaskUpdate)) (*ent.CouponTask, error) {
	u := tx.CouponTask.Update().Where(coupontask.ID(t.ID), coupontask.ShopNumber(t.ShopNumber))
	set(u)
	if err := u.Exec(ctx); err != nil {
		return nil, fmt.Errorf("update task %d: %w", t.ID, err)
	}
	return tx.CouponTask.Query().Where(coupontask.ID(t.ID), coupontask.ShopNumber(t.ShopNumber)).Only(ctx)
}
