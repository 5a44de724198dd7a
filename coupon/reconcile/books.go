package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontask"
	"coupond/ent/coupontemplate"
	"coupond/ent/redemptionfailure"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/lua"
	"coupond/store"
)

// read reads template id's books once, with the claim counters of users (none once the template
// can take no more claims), holding no lock a writer waits on, in three steps:
//
//  1. MySQL's side, in one read view: the template row (stock, issued, total) and its OPEN stock
//     batch headers. MySQL's equation, total = stock + issued + Σ reserved of OPEN headers, holds
//     in every read view (T1 and T3 change the row and the headers in one transaction).
//  2. Redis's side in one script (lua.ReconcileSnapshot: the hash, the outbox with each claim's
//     redemption key, the journals of the distribution tasks that may be running, the counters).
//  3. In one more read view, what those claims and rows became (their coupons, with the header
//     each carries, and failures) and the coupons the headers OPEN in step 1 have written so far.
//
// Redis's equation is total = cached stock + coupons + pending: coupons are the template's issued
// as step 1 read it plus what step 3 finds written by the headers OPEN in step 1; pending are the
// snapshot's claims and rows with no coupon (nor a failure whose unit went back), or whose coupon
// carries a header newer than step 1 (its unit is still in step 1's stock). Every coupon in either
// term was written for a claim Redis accepted before step 2, and a claim leaves the outbox only
// after its header settled, so each unit counts once whatever commits between the steps.
func (r *Reconciler) read(ctx context.Context, id int64, pg page) (*Report, error) {
	rep := &Report{TemplateID: id}
	users := pg.users
	var row *ent.CouponTemplate
	var tasks []int64
	var open []*ent.StockBatch
	err := store.WithTx(ctx, r.db, func(tx *ent.Tx) error {
		var err error
		if row, err = tx.CouponTemplate.Get(ctx, id); err != nil {
			return fmt.Errorf("template: %w", err)
		}
		if open, err = tx.StockBatch.Query().Where(stockbatch.TemplateID(id), stockbatch.StateEQ(stockbatch.StateOPEN)).All(ctx); err != nil {
			return fmt.Errorf("open stock batches: %w", err)
		}
		tasks, err = tx.CouponTask.Query().Where(coupontask.ShopNumber(row.ShopNumber), coupontask.TemplateID(id),
			coupontask.Or(coupontask.StatusIn(coupontask.StatusPENDING, coupontask.StatusIN_PROGRESS),
				coupontask.And(coupontask.StatusEQ(coupontask.StatusCANCELED), coupontask.CompletedAtIsNil()))).IDs(ctx)
		if err != nil {
			return fmt.Errorf("running tasks: %w", err)
		}
		return nil
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("reconcile %d: %w", id, err)
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
		return nil, fmt.Errorf("reconcile %d: redis snapshot: %w", id, err)
	}
	rep.CheckedAt = r.now()
	rep.ShopNumber, rep.TotalStock, rep.DBStock = row.ShopNumber, row.TotalStock, row.Stock
	err = store.WithTx(ctx, r.db, func(tx *ent.Tx) error {
		rep.Issued = row.Issued
		b := ledger{seq: row.BatchSeq, open: map[int64]bool{}}
		for _, h := range open {
			b.open[h.ID] = true
			rep.Reserved += h.Reserved
			w, err := issue.WrittenOf(ctx, tx.Client(), h)
			if err != nil {
				return err
			}
			rep.Issued += len(w)
			rep.Reserved -= len(w)
		}
		var err error
		if rep.Failed, err = tx.RedemptionFailure.Query().Where(redemptionfailure.TemplateID(id)).Count(ctx); err != nil {
			return fmt.Errorf("count failed claims: %w", err)
		}
		p, err := b.pendingOf(ctx, tx, id, snap, tasks)
		if err != nil {
			return err
		}
		rep.Pending = p.total
		held, err := b.heldCounts(ctx, tx, id, users)
		if err != nil {
			return err
		}
		batches, err := settledBatches(ctx, tx, pg.batches)
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
		rep.setBreaks(append(equations(rep, snap, users, held, p), batches...))
		return nil
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("reconcile %d: %w", id, err)
	}
	return rep, nil
}

// settledBatches compares each settled header's used with the coupons carrying it (live or
// archived): a coupon row lost or moved off its header reads as "batch:<id>".
func settledBatches(ctx context.Context, tx *ent.Tx, hs []*ent.StockBatch) ([]imbalance, error) {
	var out []imbalance
	for _, h := range hs {
		w, err := issue.WrittenOf(ctx, tx.Client(), h)
		if err != nil {
			return nil, err
		}
		if d := len(w) - h.Used; d != 0 {
			out = append(out, imbalance{"batch:" + strconv.FormatInt(h.ID, 10), d,
				fmt.Sprintf("stock batch %d: %d coupons carry it, it settled %d (%s)", h.ID, len(w), h.Used, units(d))})
		}
	}
	return out, nil
}

// heldCounts returns how many coupons of the template each of users holds in the books read
// (coupons of a header newer than them count as pending, not held; archived ones count), 500
// users a query.
func (b ledger) heldCounts(ctx context.Context, tx *ent.Tx, id int64, users []int64) (map[int64]int, error) {
	held := map[int64]int{}
	for chunk := range slices.Chunk(users, 500) {
		var rows []struct {
			UserID       int64  `json:"user_id"`
			RedemptionID string `json:"redemption_id"`
			StockBatchID *int64 `json:"stock_batch_id"`
		}
		err := tx.UserCoupon.Query().Where(usercoupon.UserIDIn(chunk...), usercoupon.TemplateID(id)).
			Select(usercoupon.FieldUserID, usercoupon.FieldRedemptionID, usercoupon.FieldStockBatchID).Scan(ctx, &rows)
		if err != nil {
			return nil, fmt.Errorf("count coupons: %w", err)
		}
		headers := make([]*int64, len(rows))
		for i, row := range rows {
			headers[i] = row.StockBatchID
		}
		newer, err := b.newer(ctx, tx, headers)
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			if row.StockBatchID == nil || !newer[*row.StockBatchID] {
				held[row.UserID]++
			}
		}
	}
	archived, err := issue.ArchivedSlots(ctx, tx.UserCouponArchive, id, users)
	if err != nil {
		return nil, err
	}
	for _, a := range archived {
		held[a.UserID]++
	}
	return held, nil
}

// ledger is what step 1 of read saw of the template's stock batches: its last seq and the headers
// OPEN then.
type ledger struct {
	seq  int64
	open map[int64]bool
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

// pendingOf counts the units the snapshot shows taken that MySQL does not hold as coupons in the
// books read: each outbox claim with neither a coupon nor a failure whose unit was given back (its
// redemption key gone), and each row a distribution journal accepted that has no coupon yet
// (before its batch writes it, or refused by MySQL and not given back yet), a coupon whose header
// is newer than the books counting as none. Every query carries user_id, in chunks of 500.
func (b ledger) pendingOf(ctx context.Context, tx *ent.Tx, id int64, snap *lua.Snapshot, tasks []int64) (pending, error) {
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
		issued, err := b.couponsAmong(ctx, tx, id, users, rids)
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
		for chunk := range slices.Chunk(accepted, 500) {
			users, rids := make([]int64, len(chunk)), make([]string, len(chunk))
			for n, row := range chunk {
				users[n], rids[n] = row.UserID, issue.DistributionRedemptionID(tasks[i], row.Row)
			}
			issued, err := b.couponsAmong(ctx, tx, id, users, rids)
			if err != nil {
				return p, err
			}
			for n, row := range chunk {
				if !issued[rids[n]] {
					p.add(row.UserID)
				}
			}
		}
	}
	return p, nil
}

// couponsAmong returns which of the redemption ids rids (of users) have a coupon of template id
// that the books count: one written before reservation batches, by a header OPEN in them, or by
// one settled by then (its seq not above theirs).
func (b ledger) couponsAmong(ctx context.Context, tx *ent.Tx, id int64, users []int64, rids []string) (map[string]bool, error) {
	var found []struct {
		RedemptionID string `json:"redemption_id"`
		StockBatchID *int64 `json:"stock_batch_id"`
	}
	err := tx.UserCoupon.Query().Where(usercoupon.UserIDIn(users...), usercoupon.TemplateID(id),
		usercoupon.RedemptionIDIn(rids...)).Select(usercoupon.FieldRedemptionID, usercoupon.FieldStockBatchID).Scan(ctx, &found)
	if err != nil {
		return nil, fmt.Errorf("persisted claims: %w", err)
	}
	headers := make([]*int64, len(found))
	for i, f := range found {
		headers[i] = f.StockBatchID
	}
	newer, err := b.newer(ctx, tx, headers)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(found))
	for _, f := range found {
		out[f.RedemptionID] = f.StockBatchID == nil || !newer[*f.StockBatchID]
	}
	return out, nil
}

// newer returns which of the headers (nil: a coupon written before reservation batches) are newer
// than the books: neither OPEN in them nor settled by then (seq above theirs).
func (b ledger) newer(ctx context.Context, tx *ent.Tx, headers []*int64) (map[int64]bool, error) {
	var ask []int64
	for _, h := range headers {
		if h != nil && !b.open[*h] {
			ask = append(ask, *h)
		}
	}
	out := map[int64]bool{}
	if len(ask) == 0 {
		return out, nil
	}
	ids, err := tx.StockBatch.Query().Where(stockbatch.IDIn(slices.Compact(slices.Sorted(slices.Values(ask)))...), stockbatch.SeqGT(b.seq)).IDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("stock batches: %w", err)
	}
	for _, h := range ids {
		out[h] = true
	}
	return out, nil
}
