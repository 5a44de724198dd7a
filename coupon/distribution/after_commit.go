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
// (issue.Issuer, idempotent) and their count in "issued_distribution" of their stats day (once per
// batch: lua.CountOnce under the event of the task and start); then, on each stock shard of ss in
// shards (those holding a journal of the batch), in one script, exactly once (it deletes the
// shard's journal of the batch): the give-back of what MySQL refused of the shard's users (the
// stock unit of a row refused for want of a slot; the counter of every refused row the script
// had counted). A crash anywhere in between is healed by doing it again (afterCommitFromDB).
//
// On drift (MySQL refused rows for want of stock Redis had shown) the template's hash is dropped
// for an exact rebuild: by the script, with the journal, on a template of one stock shard; after
// the scripts (template.Cache.Invalidate, as the claims' persister does) on one with more.
func (s *Service) afterCommit(ctx context.Context, t *ent.CouponTask, ss stockShards, start int, shards []int, plan afterCommitPlan) error {
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
	if len(plan.issued) > 0 {
		event := "distributed:" + strconv.FormatInt(t.ID, 10) + ":" + strconv.Itoa(start)
		_, err := lua.CountOnce(ctx, s.rdb, keys.DailyStats(t.TemplateID, day), keys.Counted(t.TemplateID, event), keys.CountedTTL,
			lua.Increment{Field: keys.StatIssuedDistribution, By: int64(len(plan.issued))})
		if err != nil {
			return fmt.Errorf("stats: count the batch after row %d: %w", start, err)
		}
	}
	drift := len(plan.drifted) > 0
	for _, i := range shards {
		sh := ss.shard(i)
		giveBack, refused := 0, []string{}
		for _, u := range plan.freed {
			if keys.UserShard(u, ss.n) == i {
				giveBack++
				refused = append(refused, sh.ClaimCounter(u))
			}
		}
		for _, u := range plan.drifted {
			if keys.UserShard(u, ss.n) == i {
				refused = append(refused, sh.ClaimCounter(u))
			}
		}
		_, err := lua.DistributeAfterCommit(ctx, s.rdb, lua.AfterCommitKeys{
			Template: sh.Stock(),
			Journal:  sh.DistributionJournal(t.ID),
			Refused:  refused,
			Journals: sh.DistributionJournals(),
		}, start, giveBack, drift && ss.n == 1)
		if err != nil {
			return fmt.Errorf("after-commit of the batch after row %d on stock shard %d: %w", start, i, err)
		}
		s.stepDone("shard after-commit")
	}
	if drift && ss.n > 1 {
		if err := s.cache.Invalidate(ctx, t.TemplateID); err != nil {
			return err
		}
	}
	return s.raiseRefused(ctx, t.TemplateID, ss.n, append(slices.Clone(plan.freed), plan.drifted...))
}

// raiseRefused raises the claim counters of users MySQL refused to the coupons it holds for them:
// the after-commit script lowered each by the unit the script had counted, and a LIMIT_REACHED refusal means Redis
// had counted fewer coupons than MySQL holds (it had lost the counter), which would let the user's
// next claims through Redis only to fail in MySQL. shards: the template's stock shards.
func (s *Service) raiseRefused(ctx context.Context, templateID int64, shards int, users []int64) error {
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
	return issue.RaiseCounters(ctx, s.rdb, templateID, shards, held, tpl.ValidEndTime, s.now())
}

// afterCommitFromDB finishes a batch reserved by a run that died before its after-commit work was
// done on every stock shard: a header still OPEN (the run died between T1 and T3) is finished from
// the journals' accepted rows first; then the plan is read back from the journals left and MySQL
// and done on their shards.
func (s *Service) afterCommitFromDB(ctx context.Context, t *ent.CouponTask, ss stockShards, j *batchJournal) error {
	h, err := s.db.StockBatch.Query().Where(stockbatch.TaskID(t.ID), stockbatch.TaskStart(j.start)).Only(ctx)
	if err != nil {
		return fmt.Errorf("stock batch of task %d after row %d: %w", t.ID, j.start, err)
	}
	if h.State == stockbatch.StateOPEN {
		r, err := issue.Resume(ctx, s.db, h)
		if err != nil {
			return err
		}
		var accepted []candidate
		for _, row := range j.rows {
			if row.Code == lua.DistributeOK {
				accepted = append(accepted, candidate{row: Row{Num: row.Row, UserID: row.UserID, Raw: strconv.FormatInt(row.UserID, 10)}, rc: row.ReceiveCount})
			}
		}
		items, rows := s.items(t, accepted)
		if _, _, err := s.finishBatch(ctx, r, items, rows); err != nil {
			return err
		}
	}
	plan, err := s.planFromDB(ctx, t, j.rows)
	if err != nil {
		return err
	}
	return s.afterCommit(ctx, t, ss, j.start, j.shards, plan)
}

// planFromDB rebuilds a committed batch's after-commit plan from its journaled rows and what MySQL
// holds: the rows the script accepted that have a failure row were refused by MySQL (a
// LIMIT_REACHED one frees its stock unit; an OUT_OF_STOCK one is drift), the others have their
// coupon.
func (s *Service) planFromDB(ctx context.Context, t *ent.CouponTask, rows []lua.JournalRow) (afterCommitPlan, error) {
	var plan afterCommitPlan
	var accepted []lua.JournalRow
	for _, r := range rows {
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
				plan.freed = append(plan.freed, r.UserID)
			default: // OUT_OF_STOCK: MySQL had less stock than Redis showed
				plan.drifted = append(plan.drifted, r.UserID)
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
