package claim

import (
	"context"
	"fmt"
	"log/slog"

	"coupond/coupon"
	"coupond/coupon/template"
	"coupond/ent"
)

// Failure reasons of claims Redis accepted and MySQL refused (see package coupon).
const (
	ReasonStockDrift       = coupon.ReasonStockDrift
	ReasonLimitReached     = coupon.ReasonLimitReached
	ReasonDuplicateRequest = coupon.ReasonDuplicateRequest
)

// failedClaim is a claim MySQL refused, with the reason.
type failedClaim struct {
	claim
	reason      string
	duplicateOf string // ReasonDuplicateRequest: the redemption id of the claim it repeats
}

// failureError is the refusal a sync request answers for a claim that ended FAILED with reason.
func failureError(reason string) error {
	if reason == ReasonLimitReached {
		return coupon.Errorf(coupon.CodeLimitReached, "%s", reason)
	}
	return coupon.Errorf(coupon.CodeOutOfStock, "%s", reason)
}

// recordFailures marks claims MySQL refused as failed with their reasons, and writes an audit
// entry for stock drift, for the reconciliation report (such a user is told FAILED with the
// reason, never "claimed" without a coupon).
func recordFailures(ctx context.Context, tx *ent.Tx, tpl *ent.CouponTemplate, failed []failedClaim) error {
	if len(failed) == 0 {
		return nil
	}
	builders := make([]*ent.RedemptionFailureCreate, len(failed))
	drift := 0
	for i, f := range failed {
		builders[i] = tx.RedemptionFailure.Create().SetUserID(f.userID).SetTemplateID(tpl.ID).
			SetRedemptionID(f.redemptionID).SetReason(f.reason)
		if f.duplicateOf != "" {
			builders[i].SetDuplicateOf(f.duplicateOf)
		}
		if f.reason == ReasonStockDrift {
			drift++
		}
	}
	if err := tx.RedemptionFailure.CreateBulk(builders...).Exec(ctx); err != nil {
		return fmt.Errorf("record failed claims: %w", err)
	}
	if drift == 0 {
		return nil
	}
	err := template.WriteAudit(ctx, tx, template.AuditEntry{
		Shop: tpl.ShopNumber, TemplateID: tpl.ID, ActorRole: template.ActorSystem, Action: template.ActionStockDrift,
		Before: map[string]any{"databaseStock": tpl.Stock}, After: map[string]any{"failedClaims": drift},
	})
	if err != nil {
		return fmt.Errorf("record drift: %w", err)
	}
	slog.WarnContext(ctx, "stock drift: Redis accepted claims the database has no stock for",
		"template", tpl.ID, "failed", drift)
	return nil
}
