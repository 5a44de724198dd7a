package claim

import (
	"context"
	"fmt"
	"log/slog"

	"coupond/coupon/template"
	"coupond/ent"
)

// ReasonStockDrift is the failure reason of a claim Redis accepted but the database had no stock for.
const ReasonStockDrift = "the coupon ran out of stock before your claim was recorded"

// recordDrift marks claims the database had no stock for as failed and writes an audit entry for
// the reconciliation report (the seed told such users "claimed" and gave them nothing, D-04).
func recordDrift(ctx context.Context, tx *ent.Tx, tpl *ent.CouponTemplate, drift []claim) error {
	builders := make([]*ent.RedemptionFailureCreate, len(drift))
	for i, c := range drift {
		builders[i] = tx.RedemptionFailure.Create().SetUserID(c.userID).SetTemplateID(tpl.ID).
			SetRedemptionID(c.redemptionID).SetReason(ReasonStockDrift)
	}
	if err := tx.RedemptionFailure.CreateBulk(builders...).Exec(ctx); err != nil {
		return fmt.Errorf("record failed claims: %w", err)
	}
	err := template.WriteAudit(ctx, tx, template.AuditEntry{
		Shop: tpl.ShopNumber, TemplateID: tpl.ID, ActorRole: "SYSTEM", Action: template.ActionStockDrift,
		Before: map[string]any{"databaseStock": tpl.Stock}, After: map[string]any{"failedClaims": len(drift)},
	})
	if err != nil {
		return fmt.Errorf("record drift: %w", err)
	}
	slog.WarnContext(ctx, "stock drift: Redis accepted claims the database has no stock for",
		"template", tpl.ID, "failed", len(drift))
	return nil
}
