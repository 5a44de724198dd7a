package reconcile

import (
	"context"
	"fmt"
	"slices"

	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/coupontemplatelog"
	"coupond/store"
)

// record reports rep: the drift metrics always; an audit row when the template's last
// reconciliation record does not say the same (a RECONCILE_DRIFT with rep's signature, or a
// RECONCILE_BALANCED after a drift). A report whose Redis side was skipped changes no record (it
// does not know the whole books). It reports whether it wrote a row.
func (r *Reconciler) record(ctx context.Context, rep *Report) (bool, error) {
	observe(rep)
	r.tracked.Store(rep.TemplateID, true)
	if rep.Skipped != "" {
		return false, nil
	}
	last, err := r.lastRecord(ctx, r.db.CouponTemplateLog.Query(), rep)
	if err != nil || !needsRecord(last, rep) {
		return false, err
	}
	wrote := false
	err = store.WithTx(ctx, r.db, func(tx *ent.Tx) error {
		// The row lock orders two runs recording the same template: the second sees the first's row.
		// The shop (the template keyspace's shard key) keeps the transaction on one shard on Vitess.
		if _, err := tx.CouponTemplate.Query().Where(coupontemplate.ID(rep.TemplateID), coupontemplate.ShopNumber(rep.ShopNumber)).ForUpdate().Only(ctx); err != nil {
			return err
		}
		last, err := r.lastRecord(ctx, tx.CouponTemplateLog.Query(), rep)
		if err != nil || !needsRecord(last, rep) {
			return err
		}
		e := template.AuditEntry{Shop: rep.ShopNumber, TemplateID: rep.TemplateID, ActorRole: template.ActorSystem,
			Action: template.ActionReconcileDrift, After: books(rep)}
		if last != nil && last.Action == template.ActionReconcileDrift {
			e.Before = last.After
		}
		if rep.Balanced {
			e.Action = template.ActionReconcileBalanced
		}
		wrote = true
		return template.WriteAudit(ctx, tx, e)
	}, nil)
	if err != nil {
		return false, fmt.Errorf("record reconciliation of %d: %w", rep.TemplateID, err)
	}
	if wrote && !rep.Balanced {
		driftsRecorded.Inc()
	}
	return wrote, nil
}

// lastRecord is the template's latest RECONCILE_* audit row, or nil.
func (r *Reconciler) lastRecord(ctx context.Context, q *ent.CouponTemplateLogQuery, rep *Report) (*ent.CouponTemplateLog, error) {
	last, err := q.Where(coupontemplatelog.ShopNumber(rep.ShopNumber), coupontemplatelog.TemplateID(rep.TemplateID),
		coupontemplatelog.ActionIn(template.ActionReconcileDrift, template.ActionReconcileBalanced)).
		Order(ent.Desc(coupontemplatelog.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return last, err
}

// needsRecord tells whether rep says something the last record does not.
func needsRecord(last *ent.CouponTemplateLog, rep *Report) bool {
	if last == nil || last.Action != template.ActionReconcileDrift {
		return !rep.Balanced // nothing recorded, or recorded balanced: only a drift is news
	}
	sig, _ := last.After["signature"].(string)
	return sig != rep.signature()
}

// books is rep as an audit row's JSON object.
func books(rep *Report) map[string]any {
	m := map[string]any{"signature": rep.signature(), "drift": rep.Drift, "totalStock": rep.TotalStock,
		"dbStock": rep.DBStock, "issued": rep.Issued, "pending": rep.Pending, "failed": rep.Failed,
		"checkedAt": rep.CheckedAt.UTC()}
	if rep.RedisStock != nil {
		m["redisStock"] = *rep.RedisStock
	}
	return m
}

// forgetEnded deletes the drift series of the templates this process has reported on that are no
// longer active (terminated, past their end, or deleted).
func (r *Reconciler) forgetEnded(ctx context.Context) error {
	var ids []int64
	r.tracked.Range(func(k, _ any) bool { ids = append(ids, k.(int64)); return true })
	if len(ids) == 0 {
		return nil
	}
	active, err := r.db.CouponTemplate.Query().Where(coupontemplate.IDIn(ids...),
		coupontemplate.StatusEQ(coupontemplate.StatusACTIVE), coupontemplate.ValidEndTimeGT(r.now())).IDs(ctx)
	if err != nil {
		return fmt.Errorf("ended templates: %w", err)
	}
	for _, id := range ids {
		if !slices.Contains(active, id) {
			forgetSeries(id)
			r.tracked.Delete(id)
		}
	}
	return nil
}
