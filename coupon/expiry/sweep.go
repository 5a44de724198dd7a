package expiry

import (
	"context"
	"fmt"
	"time"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/usercoupon"
)

// Sweep is the safety net for coupons no bucket expired (a lost or failed bucket task, a member
// added while its task ran): it expires every UNUSED coupon that ended at least SweepGrace ago,
// the same way ExpireBucket does (conditional UPDATE by (user_id, id), counted once in the
// template's stats), also removing those coupons from their buckets, and returns how many it
// expired. There is no index on (status, valid_end_time) — no user_coupon index leads with either
// — so it walks the primary key from the start in pages, letting the
// database filter status and end; a run stops after one pass or SweepLimit coupons, whichever
// comes first. Safe to run concurrently with itself and with bucket tasks.
func (e *Expirer) Sweep(ctx context.Context) (expired int, err error) {
	cutoff := e.now().UTC().Add(-e.SweepGrace)
	var after int64
	seen := 0
	for seen < e.SweepLimit {
		page := min(e.sweepPage, e.SweepLimit-seen)
		rows, err := e.db.UserCoupon.Query().
			Where(usercoupon.IDGT(after), usercoupon.StatusEQ(usercoupon.StatusUNUSED), usercoupon.ValidEndTimeLTE(cutoff)).
			Order(usercoupon.ByID()).Limit(page).
			Select(usercoupon.FieldID, usercoupon.FieldUserID, usercoupon.FieldTemplateID, usercoupon.FieldValidEndTime).
			All(ctx)
		if err != nil {
			return expired, fmt.Errorf("sweep: find ended coupons after id %d: %w", after, err)
		}
		if len(rows) == 0 {
			break
		}
		seen += len(rows)
		after = rows[len(rows)-1].ID
		byTemplate := map[int64][]*ent.UserCoupon{}
		for _, r := range rows {
			byTemplate[r.TemplateID] = append(byTemplate[r.TemplateID], r)
		}
		for templateID, coupons := range byTemplate {
			n, err := e.sweepTemplate(ctx, templateID, coupons, cutoff)
			expired += n
			if err != nil {
				return expired, err
			}
		}
		if len(rows) < page {
			break
		}
	}
	return expired, nil
}

// sweepTemplate expires the given ended coupons of one template and cleans up after them.
func (e *Expirer) sweepTemplate(ctx context.Context, templateID int64, coupons []*ent.UserCoupon, cutoff time.Time) (int, error) {
	refs := make([]couponRef, len(coupons))
	for i, c := range coupons {
		refs[i] = couponRef{userID: c.UserID, id: c.ID}
	}
	n, statuses, at, err := e.expire(ctx, templateID, refs, cutoff)
	if err != nil {
		return n, fmt.Errorf("sweep: %w", err)
	}
	pipe := e.rdb.Pipeline()
	for _, c := range coupons {
		if statuses[couponRef{userID: c.UserID, id: c.ID}] == usercoupon.StatusEXPIRED {
			pipe.SRem(ctx, keys.ExpiryBucket(templateID, BucketMinute(c.ValidEndTime).Unix()), keys.BucketMember(c.UserID, c.ID))
		}
	}
	countExpired(ctx, pipe, templateID, at, n)
	if pipe.Len() > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return n, fmt.Errorf("sweep: clean up after expiring %d coupons of template %d: %w", n, templateID, err)
		}
	}
	return n, nil
}
