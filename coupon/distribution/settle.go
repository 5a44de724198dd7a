package distribution

import (
	"context"
	"fmt"
	"slices"
	"time"

	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontaskfailure"
	"coupond/ent/usercoupon"
	"coupond/lua"
)

// settle does the Redis side of a committed batch: the issued coupons' card bags and expiry
// buckets (issue.Issuer, idempotent), then in one script, exactly once (it deletes the batch's
// journal): the give-back of what MySQL refused (the stock unit of a row refused for want of a
// slot; the counter of every refused row the script had counted, D-06) and the day's "issued"
// counter. A crash anywhere in between is healed by settling again (settleFromDB).
func (s *Service) settle(ctx context.Context, t *ent.CouponTask, start int, plan settlePlan) error {
	if err := s.issuer.AfterCommit(ctx, t.TemplateID, plan.issued, 0); err != nil {
		return err
	}
	refused := make([]string, len(plan.refused))
	for i, u := range plan.refused {
		refused[i] = keys.ClaimCounter(t.TemplateID, u)
	}
	_, err := lua.DistributeSettle(ctx, s.rdb, lua.SettleKeys{
		Template: keys.Template(t.TemplateID),
		Journal:  keys.DistributionJournal(t.TemplateID, t.ID),
		Stats:    keys.DailyStats(t.TemplateID, s.now().UTC().Format(time.DateOnly)),
		Refused:  refused,
	}, start, plan.giveBack, len(plan.issued))
	if err != nil {
		return fmt.Errorf("settle batch after row %d: %w", start, err)
	}
	return nil
}

// settleFromDB settles a batch committed by a run that died before settling it.
func (s *Service) settleFromDB(ctx context.Context, t *ent.CouponTask, j *lua.Journal) error {
	plan, err := s.planFromDB(ctx, t, j)
	if err != nil {
		return err
	}
	return s.settle(ctx, t, j.Start, plan)
}

// planFromDB rebuilds a committed batch's settlement from its journal and what MySQL holds: the
// rows the script accepted that have a failure row were refused by MySQL (a LIMIT_REACHED one
// frees its stock unit), the others have their coupon.
func (s *Service) planFromDB(ctx context.Context, t *ent.CouponTask, j *lua.Journal) (settlePlan, error) {
	var plan settlePlan
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
			default:
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
