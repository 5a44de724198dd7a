package distribution

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontask"
	"coupond/ent/coupontemplate"
	"coupond/ent/usercoupon"
	"coupond/lua"
	"coupond/store"
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

// runBatch does one batch, exactly once whatever crashes: the deduction script (a replay returns
// the journaled outcome), one transaction (a batch already committed is recognised by the resume
// position and not written again), then the after-commit work. It returns the task as committed.
func (s *Service) runBatch(ctx context.Context, t *ent.CouponTask, b batch) (*ent.CouponTask, error) {
	began := time.Now()
	var outcomes []lua.DistributeOutcome
	if len(b.candidates) > 0 {
		var err error
		if outcomes, err = s.deduct(ctx, t, b); err != nil {
			return nil, err
		}
	}
	s.stepDone("deducted")
	res, err := s.commit(ctx, t.ID, b, outcomes)
	if err != nil {
		return nil, err
	}
	s.stepDone("committed")
	if len(b.candidates) > 0 {
		if err := s.afterCommit(ctx, res.task, b.start, res.plan); err != nil {
			return nil, err
		}
	}
	s.stepDone("after-commit")
	observeBatch(res, time.Since(began))
	s.announce(ctx, t.ID)
	return res.task, nil
}

// deduct runs the deduction script for the batch's candidates, reloading the template cache
// once when it is missing.
func (s *Service) deduct(ctx context.Context, t *ent.CouponTask, b batch) ([]lua.DistributeOutcome, error) {
	k := lua.DistributeKeys{
		Template: keys.Template(t.TemplateID),
		Journal:  keys.DistributionJournal(t.TemplateID, t.ID),
		Journals: keys.DistributionJournals(t.TemplateID),
		Claims:   func(u int64) string { return keys.ClaimCounter(t.TemplateID, u) },
	}
	for attempt := 0; ; attempt++ {
		status, out, err := lua.Distribute(ctx, s.rdb, k, b.start, s.now(), b.candidates)
		if err != nil {
			return nil, fmt.Errorf("deduct batch after row %d: %w", b.start, err)
		}
		switch {
		case status == lua.DistributeDeducted || status == lua.DistributeReplayed:
			return out, nil
		case status == lua.DistributeCacheMissing && attempt == 0:
			if _, err := s.cache.Get(ctx, t.TemplateID); err != nil {
				return nil, fmt.Errorf("reload template %d: %w", t.TemplateID, err)
			}
		default:
			return nil, fmt.Errorf("deduct batch after row %d: script status %d", b.start, status)
		}
	}
}

// afterCommitPlan is what Redis gets back once a batch is committed.
type afterCommitPlan struct {
	giveBack int               // stock units MySQL refused for want of a slot (the unit is free again)
	drift    bool              // MySQL refused rows for want of stock that Redis had shown
	refused  []int64           // users whose counter the script raised and MySQL refused
	issued   []*ent.UserCoupon // the batch's coupons (expiry buckets, stats)
}

// commitResult is a committed batch.
type commitResult struct {
	task     *ent.CouponTask
	plan     afterCommitPlan
	outcomes []rowOutcome
	replayed bool // committed by an earlier run; nothing written now
}

// maxRowsPerInsert keeps one INSERT under MySQL's 65,535 placeholders.
const maxRowsPerInsert = 2000

// commit persists the batch in one transaction: under the task row's lock, a batch whose start is
// not the task's resume position was committed before (a replay: nothing written, its plan read
// back). Otherwise, under the template row's lock (as the claims' persister takes it), each row
// the script accepted gets a free receive_count slot in 1…limitPerPerson (the one the script
// handed out when free; the unique (user_id, template_id, receive_count) is MySQL's limit) and
// the stock is taken, trimmed to what the database has; the coupons go in with multi-row INSERTs,
// the failures beside them, and the task's counters and resume position move on.
func (s *Service) commit(ctx context.Context, taskID int64, b batch, out []lua.DistributeOutcome) (commitResult, error) {
	var res commitResult
	err := store.WithTx(ctx, s.db, func(tx *ent.Tx) error {
		res = commitResult{}
		t, err := tx.CouponTask.Query().Where(coupontask.ID(taskID)).ForUpdate().Only(ctx)
		if err != nil {
			return fmt.Errorf("lock task %d: %w", taskID, err)
		}
		if t.ResumeRow != b.start {
			res.task, res.replayed = t, true
			return nil
		}
		tpl, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(t.TemplateID)).ForUpdate().Only(ctx)
		if err != nil {
			return fmt.Errorf("lock template %d: %w", t.TemplateID, err)
		}
		accepted, outcomes := decide(b, out)
		slotted, refusedLimit, err := assignSlots(ctx, tx, tpl, accepted)
		if err != nil {
			return err
		}
		k := min(len(slotted), tpl.Stock)
		for _, c := range refusedLimit {
			outcomes = append(outcomes, rowOutcome{row: c.row, code: CodeLimitReached, reason: "the user already holds as many coupons of this template as one person may"})
			res.plan.refused = append(res.plan.refused, c.row.UserID)
		}
		res.plan.giveBack = len(refusedLimit)
		for _, c := range slotted[k:] {
			outcomes = append(outcomes, rowOutcome{row: c.row, code: CodeOutOfStock, reason: "the template's stock ran out"})
			res.plan.refused = append(res.plan.refused, c.row.UserID)
		}
		res.plan.drift = len(slotted) > k
		if drift := len(slotted) - k; drift > 0 { // Redis took stock MySQL does not have
			err := template.WriteAudit(ctx, tx, template.AuditEntry{Shop: tpl.ShopNumber, TemplateID: tpl.ID,
				ActorRole: template.ActorSystem, Action: template.ActionStockDrift,
				Before: map[string]any{"databaseStock": tpl.Stock}, After: map[string]any{"failedRows": drift, "taskId": strconv.FormatInt(t.ID, 10)}})
			if err != nil {
				return err
			}
		}
		if k > 0 {
			if err := tx.CouponTemplate.UpdateOneID(tpl.ID).AddStock(-k).Exec(ctx); err != nil {
				return fmt.Errorf("take stock: %w", err)
			}
			if res.plan.issued, err = insertCoupons(ctx, tx, t, tpl, slotted[:k], s.now()); err != nil {
				return err
			}
		}
		fails, err := insertFailures(ctx, tx, t.ID, outcomes)
		if err != nil {
			return err
		}
		res.outcomes = outcomes
		res.task, err = tx.CouponTask.UpdateOneID(t.ID).AddProcessedRows(len(b.rows)).AddSuccessCount(k).
			AddFailCount(fails).SetResumeRow(b.end).Save(ctx)
		return err
	}, nil)
	if err == nil && res.replayed && len(b.candidates) > 0 {
		j, jerr := lua.ReadJournal(ctx, s.rdb, keys.DistributionJournal(res.task.TemplateID, taskID))
		if jerr != nil || j == nil || j.Start != b.start {
			return res, jerr // after-commit work done already (or none to do)
		}
		res.plan, err = s.planFromDB(ctx, res.task, j)
	}
	return res, err
}

// candidate is a row the deduction script accepted, with its receive_count.
type candidate struct {
	row Row
	rc  int
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
			accepted = append(accepted, candidate{row: r, rc: o.ReceiveCount})
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

// assignSlots gives each accepted row a free receive_count for its user (issue.Slots, read from
// the user's coupons of the template under the template lock, archived ones included); rows
// without one are refused.
func assignSlots(ctx context.Context, tx *ent.Tx, tpl *ent.CouponTemplate, accepted []candidate) (slotted, refused []candidate, err error) {
	if len(accepted) == 0 {
		return nil, nil, nil
	}
	users := make([]int64, len(accepted))
	for i, c := range accepted {
		users[i] = c.row.UserID
	}
	slots := issue.NewSlots(tpl.ReceiveRule.LimitPerPerson)
	for chunk := range slices.Chunk(users, maxRowsPerInsert) {
		held, err := tx.UserCoupon.Query().Where(usercoupon.UserIDIn(chunk...), usercoupon.TemplateID(tpl.ID)).
			Select(usercoupon.FieldUserID, usercoupon.FieldReceiveCount).All(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("load held coupons: %w", err)
		}
		for _, uc := range held {
			slots.Take(uc.UserID, uc.ReceiveCount)
		}
	}
	archived, err := issue.ArchivedSlots(ctx, tx.UserCouponArchive, tpl.ID, users)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range archived {
		slots.Take(a.UserID, a.ReceiveCount)
	}
	for _, c := range accepted {
		if rc := slots.Pick(c.row.UserID, c.rc); rc > 0 {
			c.rc = rc
			slotted = append(slotted, c)
		} else {
			refused = append(refused, c)
		}
	}
	return slotted, refused, nil
}

// insertCoupons inserts the coupons of the slotted rows, with redemption ids derived from (task, row).
func insertCoupons(ctx context.Context, tx *ent.Tx, t *ent.CouponTask, tpl *ent.CouponTemplate, rows []candidate, now time.Time) ([]*ent.UserCoupon, error) {
	end := issue.End(tpl.ConsumeRule.ValidityHours, tpl.ValidEndTime, now)
	out := make([]*ent.UserCoupon, 0, len(rows))
	for chunk := range slices.Chunk(rows, maxRowsPerInsert) {
		builders := make([]*ent.UserCouponCreate, len(chunk))
		for i, c := range chunk {
			builders[i] = issue.Create(tx, issue.Coupon{
				UserID: c.row.UserID, TemplateID: tpl.ID, RedemptionID: issue.DistributionRedemptionID(t.ID, c.row.Num),
				ReceiveCount: c.rc, Source: usercoupon.SourceDISTRIBUTION, At: now, End: end,
			})
		}
		inserted, err := tx.UserCoupon.CreateBulk(builders...).Save(ctx)
		if err != nil {
			return nil, fmt.Errorf("insert coupons: %w", err)
		}
		out = append(out, inserted...)
	}
	return out, nil
}

// insertFailures inserts the failure rows and returns how many.
func insertFailures(ctx context.Context, tx *ent.Tx, taskID int64, fails []rowOutcome) (int, error) {
	for chunk := range slices.Chunk(fails, maxRowsPerInsert) {
		builders := make([]*ent.CouponTaskFailureCreate, len(chunk))
		for i, f := range chunk {
			b := tx.CouponTaskFailure.Create().SetTaskID(taskID).SetRowNum(f.row.Num).SetCode(f.code).SetReason(f.reason)
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
