package reconcile

import (
	"context"
	"fmt"
	"slices"

	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontask"
	"coupond/ent/coupontemplate"
	"coupond/ent/redemptionfailure"
	"coupond/ent/usercoupon"
	"coupond/ent/usercouponarchive"
	"coupond/lua"
	"coupond/store"

	"entgo.io/ent/dialect/sql"
)

// read reads template id's books once, with the claim counters of users (none once the template
// can take no more claims). In one transaction it
// holds the template row with a shared lock (LOCK IN SHARE MODE): every writer of the template's
// stock or coupons (a persister batch, a distribution batch, a stock increase, a termination, the
// archive's moves aside) locks the row FOR UPDATE first, so MySQL's side stands still until the
// transaction ends. Under that lock it takes Redis's side in one script (lua.ReconcileSnapshot: the
// hash, the outbox with each claim's redemption key, the journals of the distribution tasks that
// may be running, the counters), then counts in MySQL what those claims and rows became. Whatever
// moves Redis meanwhile moves it consistently: a claim takes a unit and enters the outbox in one
// script (pending), a give-back frees the unit, lowers the counter and deletes the redemption key
// in one script (no longer owed), an acknowledgement deletes the entry of a claim MySQL holds
// already, a distribution batch's after-commit script gives back and deletes its journal at once.
func (r *Reconciler) read(ctx context.Context, id int64, users []int64) (*Report, error) {
	rep := &Report{TemplateID: id}
	err := store.WithTx(ctx, r.db, func(tx *ent.Tx) error {
		row, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(id)).
			ForShare(sql.WithLockClause("LOCK IN SHARE MODE")).Only(ctx)
		if err != nil {
			return fmt.Errorf("lock template: %w", err)
		}
		tasks, err := tx.CouponTask.Query().Where(coupontask.ShopNumber(row.ShopNumber), coupontask.TemplateID(id),
			coupontask.Or(coupontask.StatusIn(coupontask.StatusPENDING, coupontask.StatusIN_PROGRESS),
				coupontask.And(coupontask.StatusEQ(coupontask.StatusCANCELED), coupontask.CompletedAtIsNil()))).IDs(ctx)
		if err != nil {
			return fmt.Errorf("running tasks: %w", err)
		}
		if row.Status != coupontemplate.StatusACTIVE || !r.now().Before(row.ValidEndTime) {
			users = nil // no claim can come any more: the counters expire at the end and mean nothing
		}
		k := lua.SnapshotKeys{Template: keys.Template(id), Outbox: keys.Outbox(id), RedemptionPrefix: keys.Redemption(id, "")}
		for _, t := range tasks {
			k.Journals = append(k.Journals, keys.DistributionJournal(id, t))
		}
		for _, u := range users {
			k.Counters = append(k.Counters, keys.ClaimCounter(id, u))
		}
		snap, err := lua.ReconcileSnapshot(ctx, r.rdb, k, r.cfg.MaxOutbox)
		if err != nil {
			return fmt.Errorf("redis snapshot: %w", err)
		}
		rep.CheckedAt = r.now()
		rep.ShopNumber, rep.TotalStock, rep.DBStock = row.ShopNumber, row.TotalStock, row.Stock
		if rep.Issued, err = countIssued(ctx, tx, id); err != nil {
			return err
		}
		if rep.Failed, err = tx.RedemptionFailure.Query().Where(redemptionfailure.TemplateID(id)).Count(ctx); err != nil {
			return fmt.Errorf("count failed claims: %w", err)
		}
		p, err := pendingOf(ctx, tx, id, snap, tasks)
		if err != nil {
			return err
		}
		rep.Pending = p.total
		held, err := issue.HeldCounts(ctx, tx.Client(), id, users)
		if err != nil {
			return err
		}
		if snap.Cached {
			stock := int(snap.Stock)
			rep.RedisStock = &stock
		}
		if snap.Truncated {
			rep.Skipped = fmt.Sprintf("the outbox holds more than %d claims: Redis not compared this time", r.cfg.MaxOutbox)
		}
		rep.setBreaks(equations(rep, snap, users, held, p))
		return nil
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("reconcile %d: %w", id, err)
	}
	return rep, nil
}

// countIssued counts the template's coupons in user_coupon and user_coupon_archive (one read view:
// a coupon being archived counts once).
func countIssued(ctx context.Context, tx *ent.Tx, id int64) (int, error) {
	live, err := tx.UserCoupon.Query().Where(usercoupon.TemplateID(id)).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count coupons: %w", err)
	}
	archived, err := tx.UserCouponArchive.Query().Where(usercouponarchive.TemplateID(id)).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count archived coupons: %w", err)
	}
	return live + archived, nil
}

// pending is what Redis took that MySQL does not hold yet.
type pending struct {
	total  int
	byUser map[int64]int
}

func (p *pending) add(user int64) {
	p.total++
	p.byUser[user]++
}

// pendingOf counts the units the snapshot shows taken and MySQL does not hold: each outbox claim
// with neither a coupon nor a failure whose unit was given back (its redemption key gone), and each
// row a distribution journal accepted that has no coupon yet (before its batch commits, or refused
// by MySQL and not given back yet). Every query carries user_id, in chunks of 500.
func pendingOf(ctx context.Context, tx *ent.Tx, id int64, snap *lua.Snapshot, tasks []int64) (pending, error) {
	p := pending{byUser: map[int64]int{}}
	var claims []lua.SnapshotEntry
	for _, e := range snap.Entries {
		if e.RedemptionID != "" { // the persister drops malformed entries
			claims = append(claims, e)
		}
	}
	for chunk := range slices.Chunk(claims, 500) {
		users, rids := make([]int64, len(chunk)), make([]string, len(chunk))
		for i, e := range chunk {
			users[i], rids[i] = e.UserID, e.RedemptionID
		}
		issued, err := couponsAmong(ctx, tx, id, users, rids)
		if err != nil {
			return p, err
		}
		failedIDs, err := tx.RedemptionFailure.Query().Where(redemptionfailure.UserIDIn(users...),
			redemptionfailure.RedemptionIDIn(rids...)).Select(redemptionfailure.FieldRedemptionID).Strings(ctx)
		if err != nil {
			return p, fmt.Errorf("failed claims: %w", err)
		}
		failed := make(map[string]bool, len(failedIDs))
		for _, rid := range failedIDs {
			failed[rid] = true
		}
		for _, e := range chunk {
			if !issued[e.RedemptionID] && (!failed[e.RedemptionID] || e.Owed) {
				p.add(e.UserID)
			}
		}
	}
	for i, j := range snap.Journals {
		if j == nil {
			continue
		}
		var accepted []lua.JournalRow
		for _, row := range j.Rows {
			if row.Code == lua.DistributeOK {
				accepted = append(accepted, row)
			}
		}
		rows, err := issue.Undistributed(ctx, tx, id, tasks[i], accepted)
		if err != nil {
			return p, err
		}
		for _, row := range rows {
			p.add(row.UserID)
		}
	}
	return p, nil
}

// couponsAmong returns which of the redemption ids rids (of users) have a coupon of template id.
func couponsAmong(ctx context.Context, tx *ent.Tx, id int64, users []int64, rids []string) (map[string]bool, error) {
	found, err := tx.UserCoupon.Query().Where(usercoupon.UserIDIn(users...), usercoupon.TemplateID(id),
		usercoupon.RedemptionIDIn(rids...)).Select(usercoupon.FieldRedemptionID).Strings(ctx)
	if err != nil {
		return nil, fmt.Errorf("persisted claims: %w", err)
	}
	out := make(map[string]bool, len(found))
	for _, rid := range found {
		out[rid] = true
	}
	return out, nil
}
