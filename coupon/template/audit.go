package template

import (
	"context"
	"encoding/json"
	"fmt"

	"coupond/coupon"
	"coupond/ent"
)

// Audit actions recorded in coupon_template_log.
const (
	ActionCreate        = "CREATE"
	ActionIncreaseStock = "INCREASE_STOCK"
	ActionTerminate     = "TERMINATE"
	// ActionStockDrift: MySQL refused claims or distribution rows Redis had accepted, for want of
	// stock (SYSTEM).
	ActionStockDrift = "STOCK_DRIFT"
	// ActionCacheStockDropped: the start-up check dropped a cached hash that showed more stock than
	// MySQL allows, for an exact rebuild (SYSTEM).
	ActionCacheStockDropped = "CACHE_STOCK_DROPPED"
	// ActionReconcileDrift: the periodic reconciliation found the books broken in a way it had not
	// recorded yet; ActionReconcileBalanced: they balance again after a recorded drift (SYSTEM).
	ActionReconcileDrift    = "RECONCILE_DRIFT"
	ActionReconcileBalanced = "RECONCILE_BALANCED"
	// ActionTaskCreate, ActionTaskCancel: a distribution task that takes the template's stock was
	// created or cancelled; ActionTaskEnd: it ended (SUCCESS, FAILED, or a cancelled one stopped),
	// with the coupons it issued (SYSTEM).
	ActionTaskCreate = "TASK_CREATE"
	ActionTaskCancel = "TASK_CANCEL"
	ActionTaskEnd    = "TASK_END"
)

// ActorSystem is the actor role of the entries coupond writes itself (actor id 0).
const ActorSystem = "SYSTEM"

// audit writes, in tx, the coupon_template_log row of an actor's change of template templateID
// (of shop) from before to after (nil: none).
func audit(ctx context.Context, tx *ent.Tx, actor coupon.Actor, shop, templateID int64, action string, before, after *coupon.Template) error {
	e := AuditEntry{Shop: shop, TemplateID: templateID, ActorID: actor.UserID, ActorRole: string(actor.Role), Action: action}
	if before != nil {
		e.Before = snapshot(before)
	}
	if after != nil {
		e.After = snapshot(after)
	}
	return WriteAudit(ctx, tx, e)
}

// AuditEntry is one coupon_template_log row.
type AuditEntry struct {
	Shop, TemplateID int64
	ActorID          int64  // 0 for the system
	ActorRole        string // a Role, or "SYSTEM"
	Action           string // one of the Action constants
	Before, After    map[string]any
}

// WriteAudit writes e in tx.
func WriteAudit(ctx context.Context, tx *ent.Tx, e AuditEntry) error {
	c := tx.CouponTemplateLog.Create().SetShopNumber(e.Shop).SetTemplateID(e.TemplateID).
		SetActorID(e.ActorID).SetActorRole(e.ActorRole).SetAction(e.Action)
	if e.Before != nil {
		c.SetBefore(e.Before)
	}
	if e.After != nil {
		c.SetAfter(e.After)
	}
	if err := c.Exec(ctx); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// snapshot is the template as a JSON object, for the audit log.
func snapshot(t *coupon.Template) map[string]any {
	b, _ := json.Marshal(t)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}
