package distribution

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontaskfailure"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/lua"
)

// afterCommit does the after-commit work of a committed batch: the issued coupons' expiry buckets
// (issue.Issuer, idempotent), then in one script, exactly once (it deletes the batch's
// journal): the give-back of what MySQL refused (the stock unit of a row refused for want of a
// slot; the counter of every refused row the script had counted) and the "issued_distribution"
// counter of the coupons' stats day. A crash anywhere in between is healed by doing it again
// (afterCommitFromDB).
func (s *Service) afterCommit(ctx context.Context, t *ent.CouponTask, start int, plan afterCommitPlan) error {
	if err := s.issuer.AfterCommit(ctx, t.TemplateID, plan.issued, 0); err != nil {
		return err
	}
	day := keys.StatsDay(s.now())
	if len(plan.issued) > 0 {
		day = keys.StatsDay(plan.issued[0].CreatedAt) // one batch: one created_at
	}
	if err := s.rdb.SAdd(ctx, keys.StatsTouched(day), t.TemplateID).Err(); err != nil {
		return fmt.Errorf("stats: touch %s: %w", day, err)
	}
	refused := make([]string, len(plan.refused))
	for i, u := range plan.refused {
		refused[i] = keys.ClaimCounter(t.TemplateID, u)
	}
	_, err := lua.DistributeAfterCommit(ctx, s.rdb, lua.AfterCommitKeys{
		Template: keys.Template(t.TemplateID),
		Journal:  keys.DistributionJournal(t.TemplateID, t.ID),
		Stats:    keys.DailyStats(t.TemplateID, day),
		Refused:  refused,
		Journals: keys.DistributionJournals(t.TemplateID),
	}, start, plan.giveBack, len(plan.issued), plan.drift)
	if err != nil {
		return fmt.Errorf("after-commit of the batch after row %d: %w", start, err)
	}
	return s.raiseRefused(ctx, t.TemplateID, plan.refused)
}

// raiseRefused raises the claim counters of users MySQL refused to the coupons it holds for them:
// the after-commit script lowered each by the unit the script had counted, and a LIMIT_REACHED refusal means Redis
// had counted fewer coupons than MySQL holds (it had lost the counter), which would let the user's
// next claims through Redis only to fail in MySQL.
func (s *Service) raiseRefused(ctx context.Context, templateID int64, users []int64) error {
	if len(users) == 0 {
		return nil
	}
	held, err := issue.HeldCounts(ctx, s.db, templateID, users)
	if err != nil {
		return err
	}
	tpl, err := s.db.CouponTemplate.Get(ctx, templateID)
	if err != nil {
		return fmt.Errorf("read template %d: %w", templateID, err)
	}
	return issue.RaiseCounters(ctx, s.rdb, templateID, 1, held, tpl.ValidEndTime, s.now())
}

// afterCommitFromDB finishes a batch reserved by a run that died before its after-commit work: a
// header still OPEN (the run died between T1 and T3) is finished from the journal's accepted rows
// first; then the plan is read back from the journal and MySQL and done.
func (s *Service) afterCommitFromDB(ctx context.Context, t *ent.CouponTask, j *lua.Journal) error {
	h, err := s.db.StockBatch.Query().Where(stockbatch.TaskID(t.ID), stockbatch.TaskStart(j.Start)).Only(ctx)
	if err != nil {
		return fmt.Errorf("stock batch of task %d after row %d: %w", t.ID, j.Start, err)
	}
	if h.State == stockbatch.StateOPEN {
		r, err := issue.Resume(ctx, s.db, h)
		if err != nil {
			return err
		}
		var accepted []candidate
		for _, row := range j.Rows {
			if row.Code == lua.DistributeOK {
				accepted = append(accepted, candidate{row: Row{Num: row.Row, UserID: row.UserID, Raw: strconv.FormatInt(row.UserID, 10)}, rc: row.ReceiveCount})
			}
		}
		items, rows := s.items(t, accepted)
		if _, _, err := s.finishBatch(ctx, r, items, rows); err != nil {
			return err
		}
	}
	plan, err := s.planFromDB(ctx, t, j)
	if err != nil {
		return err
	}
	return s.afterCommit(ctx, t, j.Start, plan)
}

// planFromDB rebuilds a committed batch's after-commit plan from its journal and what MySQL holds: the
// rows the script accepted that have a failure row were refused by MySQL (a LIMIT_REACHED one
// frees its stock unit; an OUT_OF_STOCK one is drift), the others have their coupon.
func (s *Service) planFromDB(ctx context.Context, t *ent.CouponTask, j *lua.Journal) (afterCommitPlan, error) {
	var plan afterCommitPlan
	var accepted []lua.JournalRow
	for _, r := range j.Rows {
		if r.Code == lua.DistributeOK {
			accepted = append(accepted, r)
		}
	}
	for chunk := range slices.Chunk(accepted, maxRowsPerInsert) {
		nums := make([]int, len(chunk))
		for i, r := range chunk {
			nums[i] = r.Row
		}
		fails, err := s.db.CouponTaskFailure.Query().
			Where(coupontaskfailure.TaskID(t.ID), coupontaskfailure.RowNumIn(nums...)).
			Select(coupontaskfailure.FieldRowNum, coupontaskfailure.FieldCode).All(ctx)
		if err != nil {
			return plan, fmt.Errorf("read refused rows: %w", err)
		}
		failed := map[int]string{}
		for _, f := range fails {
			failed[f.RowNum] = f.Code
		}
		var users []int64
		var rids []string
		for _, r := range chunk {
			code, refused := failed[r.Row]
			switch {
			case !refused:
				users, rids = append(users, r.UserID), append(rids, issue.DistributionRedemptionID(t.ID, r.Row))
			case code == CodeLimitReached:
				plan.giveBack++
				plan.refused = append(plan.refused, r.UserID)
			default: // OUT_OF_STOCK: MySQL had less stock than Redis showed
				plan.drift = true
				plan.refused = append(plan.refused, r.UserID)
			}
		}
		if len(rids) == 0 {
			continue
		}
		issued, err := s.db.UserCoupon.Query().
			Where(usercoupon.UserIDIn(users...), usercoupon.RedemptionIDIn(rids...)).All(ctx)
		if err != nil {
			return plan, fmt.Errorf("read issued coupons: %w", err)
		}
		plan.issued = append(plan.issued, issued...)
	}
	return plan, nil
}
