package claim

import (
	"context"
	"errors"
	"fmt"
	"time"

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
	drifted  int               // claims newly failed for want of stock
	failed   []failedClaim     // claims MySQL refused (new and previously recorded)
	held     map[int64]int     // users whose Redis counter may be low → coupons they hold after the batch
	end      time.Time         // the template's end
}

// commitBatch is the transaction. It skips claims already persisted or failed (a replayed batch),
// gives every new claim a free slot 1…limitPerPerson as its receive_count (the unique key
// (user_id, template_id, receive_count) makes MySQL enforce the limit even when Redis lost the
// user's counter; a claim with no free slot fails LIMIT_REACHED), takes the stock for the rest from
// the template row (trimmed to what the database has: the surplus fails as drift), inserts their
// coupons in one multi-row INSERT and records the failures.
//
// It first reads the users' coupons from the index (user_id, template_id, receive_count) alone:
// their counts and slots, no row lookups, which is all a batch of new claims needs. That reading
// commits only a batch in which every claim gets a slot and stock and the INSERT meets no unique
// key; anything else (a refusal, drift, a claim already persisted, a requestId repeating one of a
// held coupon) is rolled back and the batch done again reading the coupons whole (readWhole), where
// replays and duplicates are recognised and refusals decided.
func (p *Persister) commitBatch(ctx context.Context, templateID int64, claims []claim) (batchResult, error) {
	res, err := p.commitBatchReading(ctx, templateID, claims, false)
	if errors.Is(err, errReadWhole) || ent.IsConstraintError(err) {
		persistRereadTotal.Inc()
		res, err = p.commitBatchReading(ctx, templateID, claims, true)
	}
	return res, err
}

// errReadWhole rolls back a batch read without readWhole that is not all new, clean claims.
var errReadWhole = errors.New("the batch needs its users' coupons read whole")

// commitBatchReading is commitBatch's transaction; readWhole reads the users' coupons whole.
func (p *Persister) commitBatchReading(ctx context.Context, templateID int64, claims []claim, readWhole bool) (batchResult, error) {
	var res batchResult
	err := store.WithTx(ctx, p.db, func(tx *ent.Tx) error {
		res = batchResult{held: map[int64]int{}}
		tpl, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(templateID)).ForUpdate().Only(ctx)
		if err != nil {
			return fmt.Errorf("lock template %d: %w", templateID, err)
		}
		res.end = tpl.ValidEndTime
		seen, err := loadSeen(ctx, tx, templateID, tpl.ReceiveRule.LimitPerPerson, claims, readWhole)
		if err != nil {
			return err
		}
		fresh := seen.split(claims, &res)
		slotted, refused := seen.assignSlots(fresh)
		k := min(len(slotted), tpl.Stock)
		if !readWhole && (len(refused) > 0 || k < len(slotted)) {
			return errReadWhole
		}
		if k > 0 {
			if err := insertCoupons(ctx, tx, tpl, slotted[:k], &res); err != nil {
				return err
			}
		}
		for _, c := range slotted[k:] {
			refused = append(refused, failedClaim{c, ReasonStockDrift, ""})
			seen.count[c.userID]-- // its slot was not used
		}
		res.drifted = len(slotted) - k
		res.failed = append(res.failed, refused...)
		for _, f := range res.failed {
			res.held[f.userID] = seen.count[f.userID]
		}
		for u := range seen.behind {
			res.held[u] = seen.count[u]
		}
		return recordFailures(ctx, tx, tpl, refused)
	}, nil)
	return res, err
}

// reqKey is a user's requestId.
type reqKey struct {
	user int64
	req  string
}

// seenClaims is what the database already holds of a batch's users and claims.
type seenClaims struct {
	held     []*ent.UserCoupon // the batch's users' coupons of this template: user, redemption id, requestId, receive_count only
	replayed []*ent.UserCoupon // whole rows of those that are claims of the batch
	failed   map[string]string // redemption id → reason, for the batch's claims already failed
	dupOf    map[string]string // redemption id → the one it repeats, for failed duplicates
	byReq    map[reqKey]string // (user, requestId) → redemption id of the coupon, held or inserted now
	count    map[int64]int     // user → coupons held
	slots    *issue.Slots      // (user, receive_count) pairs in use
	done     map[string]bool   // redemption ids persisted or failed
	behind   map[int64]bool    // users whose claim Redis counted below the coupons MySQL holds with it
}

// loadSeen reads, inside the batch's transaction, the coupons and failures the batch's claims
// may already have (a replayed batch), and the slots of the users' archived coupons; limit is the
// template's limitPerPerson. Without readWhole the users' coupons give only their counts and slots
// (see commitBatch): no replay or duplicate requestId is recognised from them.
func loadSeen(ctx context.Context, tx *ent.Tx, templateID int64, limit int, claims []claim, readWhole bool) (*seenClaims, error) {
	users := make([]int64, 0, len(claims))
	rids := make([]string, 0, len(claims))
	for _, c := range claims {
		users = append(users, c.userID)
		rids = append(rids, c.redemptionID)
	}
	// The users' coupons: with readWhole the columns the checks need (under a sale of a template
	// with a per-person limit above 1 this is several rows per claim, each a row lookup), else the
	// two that the index (user_id, template_id, receive_count) covers.
	columns := []string{usercoupon.FieldUserID, usercoupon.FieldReceiveCount}
	if readWhole {
		columns = append(columns, usercoupon.FieldRedemptionID, usercoupon.FieldRequestID)
	}
	held, err := tx.UserCoupon.Query().
		Where(usercoupon.UserIDIn(users...), usercoupon.TemplateID(templateID)).
		Select(columns...).
		All(ctx)
	if err != nil {
		return nil, fmt.Errorf("load existing coupons: %w", err)
	}
	// Whole rows of the batch's own claims already persisted (a replayed batch): they are
	// answered and followed up again as issued.
	inBatch := make(map[string]bool, len(rids))
	for _, rid := range rids {
		inBatch[rid] = true
	}
	var again []string
	for _, uc := range held {
		if readWhole && inBatch[uc.RedemptionID] {
			again = append(again, uc.RedemptionID)
		}
	}
	var replayed []*ent.UserCoupon
	if len(again) > 0 {
		if replayed, err = tx.UserCoupon.Query().Where(usercoupon.RedemptionIDIn(again...)).All(ctx); err != nil {
			return nil, fmt.Errorf("load replayed coupons: %w", err)
		}
	}
	failedBefore, err := tx.RedemptionFailure.Query().
		Where(redemptionfailure.UserIDIn(users...), redemptionfailure.RedemptionIDIn(rids...)).
		Select(redemptionfailure.FieldRedemptionID, redemptionfailure.FieldReason, redemptionfailure.FieldDuplicateOf).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("load failed claims: %w", err)
	}
	s := &seenClaims{held: held, replayed: replayed, failed: map[string]string{}, dupOf: map[string]string{},
		byReq: map[reqKey]string{}, count: map[int64]int{}, slots: issue.NewSlots(limit), done: map[string]bool{},
		behind: map[int64]bool{}}
	for _, uc := range held {
		if uc.RequestID != nil {
			s.byReq[reqKey{uc.UserID, *uc.RequestID}] = uc.RedemptionID
		}
		if readWhole {
			s.done[uc.RedemptionID] = true
		}
		s.count[uc.UserID]++
		s.slots.Take(uc.UserID, uc.ReceiveCount)
	}
	archived, err := issue.ArchivedSlots(ctx, tx.UserCouponArchive, templateID, users)
	if err != nil {
		return nil, err
	}
	for _, a := range archived { // old coupons long used or expired: they count toward the limit, nothing else
		s.count[a.UserID]++
		s.slots.Take(a.UserID, a.ReceiveCount)
	}
	for _, f := range failedBefore {
		s.failed[f.RedemptionID] = f.Reason
		if f.DuplicateOf != nil {
			s.dupOf[f.RedemptionID] = *f.DuplicateOf
		}
		s.done[f.RedemptionID] = true
	}
	return s, nil
}

// split returns the claims the database has not seen, and records in res the batch's claims it
// has: their coupons as issued, their failures as failed.
func (s *seenClaims) split(claims []claim, res *batchResult) []claim {
	var fresh []claim
	for _, c := range claims {
		reason, failed := s.failed[c.redemptionID]
		switch {
		case !s.done[c.redemptionID]:
			fresh = append(fresh, c)
			s.done[c.redemptionID] = true // a claim twice in one batch counts once
		case failed:
			res.failed = append(res.failed, failedClaim{c, reason, s.dupOf[c.redemptionID]})
		}
	}
	res.issued = append(res.issued, s.replayed...)
	return fresh
}

// assignSlots gives each claim a free receive_count in 1…limit for its user (issue.Slots: its own
// when free and within the limit, else the lowest free one). A claim repeating a requestId of a
// coupon the user holds (or of an earlier claim of the batch) is refused as a duplicate of it;
// claims with no free slot are refused (LIMIT_REACHED).
func (s *seenClaims) assignSlots(claims []claim) (slotted []claim, refused []failedClaim) {
	for _, c := range claims {
		if first, dup := s.byReq[reqKey{c.userID, c.requestID}]; dup && c.requestID != "" {
			refused = append(refused, failedClaim{c, ReasonDuplicateRequest, first})
			continue
		}
		rc := s.slots.Pick(c.userID, c.receiveCount)
		if rc == 0 {
			refused = append(refused, failedClaim{c, ReasonLimitReached, ""})
			continue
		}
		s.count[c.userID]++
		if c.counted > 0 && c.counted < s.count[c.userID] {
			s.behind[c.userID] = true // Redis lost claims MySQL holds: raise its counter after the batch
		}
		if c.requestID != "" {
			s.byReq[reqKey{c.userID, c.requestID}] = c.redemptionID
		}
		c.receiveCount = rc
		slotted = append(slotted, c)
	}
	return slotted, refused
}

// insertCoupons takes len(claims) from the template's stock and inserts their coupons in one
// multi-row INSERT, recording them in res.
func insertCoupons(ctx context.Context, tx *ent.Tx, tpl *ent.CouponTemplate, claims []claim, res *batchResult) error {
	if err := tx.CouponTemplate.UpdateOneID(tpl.ID).AddStock(-len(claims)).Exec(ctx); err != nil {
		return fmt.Errorf("take stock: %w", err)
	}
	builders := make([]*ent.UserCouponCreate, 0, len(claims))
	for _, c := range claims {
		builders = append(builders, issue.Create(tx, issue.Coupon{
			UserID: c.userID, TemplateID: tpl.ID, RedemptionID: c.redemptionID, ReceiveCount: c.receiveCount,
			RequestID: c.requestID,
			Source:    usercoupon.SourceCLAIM, At: c.at, End: issue.End(tpl.ConsumeRule.ValidityHours, tpl.ValidEndTime, c.at),
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
