package claim

import (
	"context"
	"fmt"

	"coupond/coupon/issue"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/redemptionfailure"
	"coupond/ent/usercoupon"
	"coupond/store"
)

// batchResult is what one transaction decided.
type batchResult struct {
	issued   []*ent.UserCoupon // new and previously persisted coupons of the batch
	inserted int               // of which new
	drifted  int               // claims newly recorded as failed
	failed   []claim           // claims the database had no stock for (new and previously recorded)
}

// commitBatch is the transaction: skip claims already persisted or failed, take the stock for
// the rest from the template row (trimmed to what the database has), insert their coupons in one
// multi-row INSERT and record the claims it could not honour as failed.
func (p *Persister) commitBatch(ctx context.Context, templateID int64, claims []claim) (batchResult, error) {
	var res batchResult
	err := store.WithTx(ctx, p.db, func(tx *ent.Tx) error {
		res = batchResult{}
		tpl, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(templateID)).ForUpdate().Only(ctx)
		if err != nil {
			return fmt.Errorf("lock template %d: %w", templateID, err)
		}
		seen, err := loadSeen(ctx, tx, templateID, claims)
		if err != nil {
			return err
		}
		fresh := seen.split(claims, &res)
		k := min(len(fresh), tpl.Stock)
		if k > 0 {
			if err := seen.insert(ctx, tx, tpl, fresh[:k], &res); err != nil {
				return err
			}
		}
		if drift := fresh[k:]; len(drift) > 0 {
			if err := recordDrift(ctx, tx, tpl, drift); err != nil {
				return err
			}
			res.failed = append(res.failed, drift...)
			res.drifted = len(drift)
		}
		return nil
	}, nil)
	return res, err
}

// seenClaims is what the database already holds of a batch's users and claims.
type seenClaims struct {
	held   []*ent.UserCoupon // the batch's users' coupons of this template
	failed map[string]bool   // redemption ids of the batch already recorded as failed
	maxRC  map[int64]int     // user → highest receive_count held
	taken  map[[2]int64]bool // (user, receive_count) pairs in use
	done   map[string]bool   // redemption ids persisted or failed
}

// loadSeen reads, inside the batch's transaction, the coupons and failures the batch's claims
// may already have (a replayed batch).
func loadSeen(ctx context.Context, tx *ent.Tx, templateID int64, claims []claim) (*seenClaims, error) {
	users := make([]int64, 0, len(claims))
	rids := make([]string, 0, len(claims))
	for _, c := range claims {
		users = append(users, c.userID)
		rids = append(rids, c.redemptionID)
	}
	held, err := tx.UserCoupon.Query().
		Where(usercoupon.UserIDIn(users...), usercoupon.TemplateID(templateID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("load existing coupons: %w", err)
	}
	failedBefore, err := tx.RedemptionFailure.Query().
		Where(redemptionfailure.UserIDIn(users...), redemptionfailure.RedemptionIDIn(rids...)).
		Select(redemptionfailure.FieldRedemptionID).Strings(ctx)
	if err != nil {
		return nil, fmt.Errorf("load failed claims: %w", err)
	}
	s := &seenClaims{held: held, failed: map[string]bool{}, maxRC: map[int64]int{},
		taken: map[[2]int64]bool{}, done: map[string]bool{}}
	for _, uc := range held {
		s.done[uc.RedemptionID] = true
		s.maxRC[uc.UserID] = max(s.maxRC[uc.UserID], uc.ReceiveCount)
		s.taken[[2]int64{uc.UserID, int64(uc.ReceiveCount)}] = true
	}
	for _, rid := range failedBefore {
		s.failed[rid] = true
		s.done[rid] = true
	}
	return s, nil
}

// split returns the claims the database has not seen, and records in res the batch's claims it
// has: their coupons as issued, their failures as failed.
func (s *seenClaims) split(claims []claim, res *batchResult) []claim {
	inBatch := map[string]bool{}
	var fresh []claim
	for _, c := range claims {
		inBatch[c.redemptionID] = true
		switch {
		case !s.done[c.redemptionID]:
			fresh = append(fresh, c)
			s.done[c.redemptionID] = true // a claim twice in one batch counts once
		case s.failed[c.redemptionID]:
			res.failed = append(res.failed, c)
		}
	}
	for _, uc := range s.held {
		if inBatch[uc.RedemptionID] {
			res.issued = append(res.issued, uc)
		}
	}
	return fresh
}

// insert takes len(claims) from the template's stock and inserts their coupons in one multi-row
// INSERT, recording them in res.
func (s *seenClaims) insert(ctx context.Context, tx *ent.Tx, tpl *ent.CouponTemplate, claims []claim, res *batchResult) error {
	if err := tx.CouponTemplate.UpdateOneID(tpl.ID).AddStock(-len(claims)).Exec(ctx); err != nil {
		return fmt.Errorf("take stock: %w", err)
	}
	builders := make([]*ent.UserCouponCreate, 0, len(claims))
	for _, c := range claims {
		rc := c.receiveCount
		// A receive_count already used (Redis lost the user's counter) moves past the user's
		// highest, so the unique key never refuses a legitimate claim.
		if s.taken[[2]int64{c.userID, int64(rc)}] {
			rc = s.maxRC[c.userID] + 1
		}
		s.taken[[2]int64{c.userID, int64(rc)}] = true
		s.maxRC[c.userID] = max(s.maxRC[c.userID], rc)
		builders = append(builders, issue.Create(tx, issue.Coupon{
			UserID: c.userID, TemplateID: tpl.ID, RedemptionID: c.redemptionID, ReceiveCount: rc,
			Source: usercoupon.SourceCLAIM, At: c.at, End: issue.End(tpl.ConsumeRule.ValidityHours, tpl.ValidEndTime, c.at),
		}))
	}
	inserted, err := tx.UserCoupon.CreateBulk(builders...).Save(ctx)
	if err != nil {
		return fmt.Errorf("insert coupons: %w", err)
	}
	res.issued = append(res.issued, inserted...)
	res.inserted = len(inserted)
	return nil
}
