package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"coupond/coupon/keys"
	"coupond/ent/coupontemplate"
)

// RunResult is what one periodic run did.
type RunResult struct {
	Checked  int // templates whose books were read
	Drifting int // of which with a broken equation
	Recorded int // audit rows written (new drifts, and drifts that cleared)
}

// Run is one periodic reconciliation, bounded work whatever the data's size: the next Templates
// active templates (ACTIVE, not past their end; round robin by id), plus the active templates of
// the claim hashes one SCAN page found (scanCounters: on a Redis Cluster, one per template of the
// page, so it adds none). Per template it compares the counters of the next Users
// holders of its coupons (round robin by user id) and of the SCAN page's users, reads the books
// (a broken equation read twice, Recheck apart, see Check), updates the drift metrics and writes
// an audit row for each drift not recorded yet (RECONCILE_DRIFT) and for a recorded drift that
// cleared (RECONCILE_BALANCED). It never changes stock or counters. A template whose books cannot
// be read is skipped (its error returned with the others') and the run goes on.
func (r *Reconciler) Run(ctx context.Context) (RunResult, error) {
	var res RunResult
	cur, err := r.rdb.HGetAll(ctx, keys.ReconcileCursors()).Result()
	if err != nil {
		return res, fmt.Errorf("reconcile cursors: %w", err)
	}
	page, err := r.activePage(ctx, cursor(cur, "template"))
	if err != nil {
		return res, err
	}
	next := map[string]any{"template": "0"}
	scanned, err := r.scanCounters(ctx, cur, page, next)
	if err != nil {
		return res, err
	}
	extra, err := r.activeAmong(ctx, scanned, page)
	if err != nil {
		return res, err
	}
	var errs []error
	if len(page) == r.cfg.Templates {
		next["template"] = strconv.FormatInt(page[len(page)-1], 10) // else: walked once, start again
	}
	for _, id := range append(page, extra...) {
		userCursor := "u:" + strconv.FormatInt(id, 10)
		pg, after, err := r.holders(ctx, id, cursor(cur, userCursor), r.cfg.Users)
		if err != nil {
			return res, err
		}
		for _, u := range scanned[id] {
			if !slices.Contains(pg.users, u) {
				pg.users = append(pg.users, u)
			}
		}
		rep, err := r.confirmed(ctx, id, pg)
		if err != nil {
			errs = append(errs, err) // one template's failure does not stop the others'
			continue
		}
		res.Checked++
		if !rep.Balanced {
			res.Drifting++
		}
		recorded, err := r.record(ctx, rep)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if recorded {
			res.Recorded++
		}
		next[userCursor] = strconv.FormatInt(after, 10)
	}
	if err := r.rdb.HSet(ctx, keys.ReconcileCursors(), next).Err(); err != nil {
		return res, fmt.Errorf("save reconcile cursors: %w", err)
	}
	lastRun.SetToCurrentTime()
	return res, errors.Join(append(errs, r.forgetEnded(ctx))...)
}

// activePage returns up to Templates active templates with ids above after, in id order.
func (r *Reconciler) activePage(ctx context.Context, after int64) ([]int64, error) {
	page, err := r.db.CouponTemplate.Query().Where(coupontemplate.StatusEQ(coupontemplate.StatusACTIVE),
		coupontemplate.ValidEndTimeGT(r.now()), coupontemplate.IDGT(after)).
		Order(coupontemplate.ByID()).Limit(r.cfg.Templates).IDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("active templates: %w", err)
	}
	return page, nil
}

// activeAmong returns the active templates among those of found that are not in page.
func (r *Reconciler) activeAmong(ctx context.Context, found map[int64][]int64, page []int64) ([]int64, error) {
	var others []int64
	for id := range found {
		if !slices.Contains(page, id) {
			others = append(others, id)
		}
	}
	if len(others) == 0 {
		return nil, nil
	}
	more, err := r.db.CouponTemplate.Query().Where(coupontemplate.IDIn(others...),
		coupontemplate.StatusEQ(coupontemplate.StatusACTIVE), coupontemplate.ValidEndTimeGT(r.now())).IDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("active templates: %w", err)
	}
	return more, nil
}
