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
	"coupond/lua"
)

// read reads template id's books once, with the claim counters of users (none once the template
// can take no more claims), holding no lock a writer waits on and no transaction spanning shards,
// in three steps:
//
//  1. MySQL's side on the template's shard, in one read view (issue.ReadView): the template row
//     (stock, issued, total) and its OPEN stock batch headers. MySQL's equation, total = stock +
//     issued + Σ reserved of OPEN headers, holds in every read view (T1 and T3 change the row and
//     the headers in one transaction).
//  2. Redis's side in one script (lua.ReconcileSnapshot: the hash, the outbox with each claim's
//     redemption key, the journals of the distribution tasks that may be running, the counters),
//     or with stock shards one per hash read as one consistent cut (snapshot), which raises the
//     hashes' epochs. Then, on the template's shard, the headers settled since step 1.
//  3. Per user shard, in one read view each (issue.ReadShards), what those claims and rows became
//     (their coupons, with the header each carries, and failures), the users' coupons, and the
//     coupons the headers OPEN in step 1 (and the settled headers of the page) have written so far.
//
// Redis's equation is total = cached stock + coupons + meanwhile + pending: coupons are the
// template's issued as step 1 read it plus what step 3 finds written by the headers OPEN in step 1;
// meanwhile are the coupons of the batches that went wholly between steps 1 and 2 (earlyBatches),
// still in step 1's stock; pending are the
// snapshot's claims and rows with no coupon (nor a failure whose unit went back), or whose coupon
// carries a header newer than step 1 (its unit is still in step 1's stock). Every coupon in either
// term was written for a claim Redis accepted before step 2, and a claim leaves the outbox only
// after its header settled, so a unit counts at most once; and everything about one user is read
// in one read view, so a T2 is seen whole for each user. A batch whose T1, T2, T3 and outbox
// removal (or journal deletion) all commit between step 1 and step 2 is in neither the view nor
// the snapshot: the epochs its items carry tell it from a batch of claims taken after step 2
// (without them, bench/reconcile's back-to-back checks read "500 unaccounted for" once, 2026-12-06).
// The epoch lives in the template hash: a hash lost and rebuilt starts it again at 0, so a check
// that spans the loss may misplace a batch in flight across it, once.
func (r *Reconciler) read(ctx context.Context, id int64, pg page) (*Report, error) {
	rep := &Report{TemplateID: id}
	users := pg.users
	v, err := issue.ReadView(ctx, r.db, id, false)
	if err != nil {
		return nil, fmt.Errorf("reconcile %d: %w", id, err)
	}
	row := v.Row
	if r.afterView != nil {
		r.afterView()
	}
	tasks, err := r.db.CouponTask.Query().Where(coupontask.ShopNumber(row.ShopNumber), coupontask.TemplateID(id),
		coupontask.Or(coupontask.StatusIn(coupontask.StatusPENDING, coupontask.StatusIN_PROGRESS),
			coupontask.And(coupontask.StatusEQ(coupontask.StatusCANCELED), coupontask.CompletedAtIsNil()))).IDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("reconcile %d: running tasks: %w", id, err)
	}
	if row.Status != coupontemplate.StatusACTIVE || !r.now().Before(row.ValidEndTime) {
		users = nil // no claim can come any more: the counters expire at the end and mean nothing
	}
	snap, skipped, err := r.snapshot(ctx, id, row.StockShards, tasks, users)
	if err != nil {
		return nil, fmt.Errorf("reconcile %d: redis snapshot: %w", id, err)
	}
	if skipped != "" {
		users = nil // the stock shards gave no consistent cut: no counters were read
	}
	rep.CheckedAt = r.now()
	rep.ShopNumber, rep.TotalStock, rep.DBStock = row.ShopNumber, row.TotalStock, row.Stock
	if r.afterSnapshot != nil {
		r.afterSnapshot()
	}
	claims, rows := snapshotRefs(snap, tasks)
	settled, err := v.SettledSince(ctx, r.db)
	if err != nil {
		return nil, fmt.Errorf("reconcile %d: %w", id, err)
	}
	early := earlyBatches(settled, snap, claims, rows)
	for _, h := range early {
		v.Include(h)
	}
	f, err := issue.ReadShards(ctx, r.db, id, r.cfg.UserShards, issue.Lookup{
		Refs: append(append([]issue.Ref(nil), claims...), rows...), Headers: append(slices.Clip(v.Open), pg.batches...), Holders: users})
	if err == nil {
		err = v.Resolve(ctx, r.db, f)
	}
	if err == nil {
		rep.Failed, err = r.db.RedemptionFailure.Query().Where(redemptionfailure.TemplateID(id)).Count(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("reconcile %d: %w", id, err)
	}
	rep.Issued = row.Issued
	for _, h := range early {
		rep.Meanwhile += h.Used
	}
	for _, h := range v.Open {
		rep.Reserved += h.Reserved - f.Written[h.ID]
		rep.Issued += f.Written[h.ID]
	}
	p := pendingOf(v, f, snap, claims, rows)
	rep.Pending = p.total
	if snap.Cached {
		stock := int(snap.Stock)
		rep.RedisStock = &stock
	}
	if rep.Skipped = skipped; snap.Truncated && skipped == "" {
		rep.Skipped = fmt.Sprintf("the outbox holds more than %d claims: Redis not compared this time", r.cfg.MaxOutbox)
	}
	rep.setBreaks(append(equations(rep, snap, users, heldCounts(v, f, users), p), settledBatches(f, pg.batches)...))
	return rep, nil
}

// snapshotRefs returns the snapshot's claims (in outbox order, malformed entries left out as the
// persister drops them) and the rows its distribution journals accepted, as references to their
// coupons.
func snapshotRefs(snap *lua.Snapshot, tasks []int64) (claims, rows []issue.Ref) {
	for _, e := range snap.Entries {
		if e.RedemptionID != "" {
			claims = append(claims, issue.Ref{User: e.UserID, RedemptionID: e.RedemptionID})
		}
	}
	for i, js := range snap.Journals {
		for _, j := range js {
			for _, row := range j.Rows {
				if row.Code == lua.DistributeOK {
					rows = append(rows, issue.Ref{User: row.UserID, RedemptionID: issue.DistributionRedemptionID(tasks[i], row.Row)})
				}
			}
		}
	}
	return claims, rows
}

// earlyBatches returns the headers of settled (settled since step 1) whose batches went wholly
// between step 1 and the snapshot: each item's unit taken before the snapshot (its epoch below the
// snapshot's for the item's stock shard) and none of its items in the snapshot (claims and rows:
// its outbox entries acknowledged, its journal deleted, which follow T3). Their units are in
// neither the view's issued nor the snapshot's claims: their coupons count on Redis's side. A batch
// with an item in the snapshot had all its units taken before the snapshot there (its entries or
// journal are removed together, after T3), counted as pending; one whose units were taken after the
// snapshot is not in the snapshot's stock at all.
func earlyBatches(settled []*ent.StockBatch, snap *lua.Snapshot, refs ...[]issue.Ref) []*ent.StockBatch {
	if len(snap.Epochs) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, rs := range refs {
		for _, r := range rs {
			seen[r.RedemptionID] = true
		}
	}
	var out []*ent.StockBatch
	for _, h := range settled {
		early := len(h.Items) > 0
		for _, it := range h.Items {
			if seen[it.Rid] || it.Epoch >= snap.Epochs[keys.UserShard(it.User, len(snap.Epochs))] {
				early = false
				break
			}
		}
		if early {
			out = append(out, h)
		}
	}
	return out
}

// settledBatches compares each settled header's used with the coupons carrying it (live or
// archived): a coupon row lost or moved off its header reads as "batch:<id>".
func settledBatches(f issue.Found, hs []*ent.StockBatch) []imbalance {
	var out []imbalance
	for _, h := range hs {
		if d := f.Written[h.ID] - h.Used; d != 0 {
			out = append(out, imbalance{"batch:" + strconv.FormatInt(h.ID, 10), d,
				fmt.Sprintf("stock batch %d: %d coupons carry it, it settled %d (%s)", h.ID, f.Written[h.ID], h.Used, units(d))})
		}
	}
	return out
}

// heldCounts returns how many coupons of the template each of users holds in the books read
// (coupons of a header newer than them count as pending, not held; archived ones count).
func heldCounts(v *issue.View, f issue.Found, users []int64) map[int64]int {
	held := map[int64]int{}
	for _, u := range users {
		for _, h := range f.Held[u] {
			if v.Counts(h) {
				held[u]++
			}
		}
		held[u] += f.Archived[u]
	}
	return held
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
// is newer than the books counting as none.
func pendingOf(v *issue.View, f issue.Found, snap *lua.Snapshot, claims, rows []issue.Ref) pending {
	p := pending{byUser: map[int64]int{}}
	written := func(rid string) bool {
		h, ok := f.Coupon[rid]
		return ok && v.Counts(h)
	}
	owed := map[string]bool{}
	for _, e := range snap.Entries {
		owed[e.RedemptionID] = e.Owed
	}
	for _, c := range claims {
		if !written(c.RedemptionID) && (!f.Failed[c.RedemptionID] || owed[c.RedemptionID]) {
			p.add(c.User)
		}
	}
	for _, r := range rows {
		if !written(r.RedemptionID) {
			p.add(r.User)
		}
	}
	return p
}
