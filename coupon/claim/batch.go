package claim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"coupond/coupon/issue"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/redemptionfailure"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
)

// batchResult is what one batch decided.
type batchResult struct {
	issued   []*ent.UserCoupon // new and previously persisted coupons of the batch
	inserted int               // of which new
	drifted  int               // claims newly failed for want of stock
	failed   []failedClaim     // claims MySQL refused (new and previously recorded)
	held     map[int64]int     // users whose Redis counter may be low → coupons they hold after the batch
	end      time.Time         // the template's end
}

// commitBatch writes a batch of claims of one template as a reservation batch (coupon/issue):
// T1 takes min(claims, stock) units from the template row under an OPEN header; one T2 per
// user-shard group (UserShards) recognises replays and earlier refusals, gives every new claim a
// free slot 1…limitPerPerson as its receive_count (the unique key (user_id, template_id,
// receive_count) makes MySQL enforce the limit even when Redis lost the user's counter; a claim
// with no free slot fails LIMIT_REACHED), writes the coupons within the units left and records the
// refusals (the surplus fails as drift); T3 gives back the unused units and settles the header,
// auditing drift. A crash anywhere leaves the claims in the outbox: their replay recognises what
// was written, and the sweep settles the header left OPEN.
func (p *Persister) commitBatch(ctx context.Context, templateID int64, claims []claim) (batchResult, error) {
	items := make([]issue.Item, len(claims))
	byRid := make(map[string]claim, len(claims))
	for i, c := range claims {
		items[i] = issue.Item{Coupon: issue.Coupon{UserID: c.userID, TemplateID: templateID, RedemptionID: c.redemptionID,
			ReceiveCount: c.receiveCount, RequestID: c.requestID, Source: usercoupon.SourceCLAIM, At: c.at}, Counted: c.counted, Epoch: c.epoch}
		byRid[c.redemptionID] = c
	}
	meta, err := p.cache.Get(ctx, templateID) // its shop number: T1 names the template's shard
	if err != nil {
		return batchResult{}, fmt.Errorf("template %d: %w", templateID, err)
	}
	r, err := issue.Reserve(ctx, p.db, issue.ReserveSpec{TemplateID: templateID, ShopNumber: meta.ShopNumber,
		Source: stockbatch.SourceCLAIM, Items: items})
	if err != nil {
		return batchResult{}, err
	}
	p.stepDone("reserved")
	tpl := r.Template
	for i := range items {
		items[i].End = issue.End(tpl.ConsumeRule.ValidityHours, tpl.ValidEndTime, items[i].At)
	}
	res := batchResult{held: map[int64]int{}, end: tpl.ValidEndTime}
	budget := r.Header.Reserved
	var carried []time.Time
	for _, g := range issue.Groups(items, p.cfg.UserShards) {
		w, err := issue.Write(ctx, p.db, r, g, budget, issue.WriteOptions{Prior: priorFailures, AnyPrior: anyFailure, Record: recordFailures, Vitess: p.cfg.Vitess, OneUserShard: p.cfg.UserShards <= 1})
		if err != nil {
			p.abandon(ctx, r.Header)
			return res, fmt.Errorf("write claims of batch %d: %w", r.Header.ID, err)
		}
		budget -= len(w.Carried)
		carried = append(carried, w.Carried...)
		res.issued = append(res.issued, w.Issued...)
		res.inserted += w.Inserted
		res.drifted += w.Drifted
		for _, f := range w.Refused {
			res.failed = append(res.failed, failedClaim{claim: byRid[f.RedemptionID], reason: f.Reason, duplicateOf: f.DuplicateOf})
		}
		for u, n := range w.Held {
			res.held[u] = n
		}
		p.stepDone("written")
	}
	err = issue.Settle(ctx, p.db, r.Header, issue.Settlement{Carried: carried,
		Finish: func(ctx context.Context, tx *ent.Tx, tpl *ent.CouponTemplate) error {
			return auditDrift(ctx, tx, tpl, res.drifted)
		}})
	if err != nil && !errors.Is(err, issue.ErrSettled) {
		return res, fmt.Errorf("settle batch %d: %w", r.Header.ID, err)
	}
	return res, nil
}

// abandon settles header h of a batch whose T2 failed at once (issue.Abandon), so its units do not
// wait SweepAfter for the sweep while the next batch retries its claims; when that fails too (the
// database is down), the sweep does it later.
func (p *Persister) abandon(ctx context.Context, h *ent.StockBatch) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if _, err := issue.Abandon(ctx, p.db, h, p.cfg.UserShards); err != nil {
		slog.WarnContext(ctx, "stock batch left to the sweep", "template", h.TemplateID, "batch", h.ID, "err", err)
	}
}

// priorChunk is the most claims one read of priorFailures names: MariaDB's range optimizer pairs
// its two lists over the index (user_id, redemption_id), so a read costs it their product (about
// 2 ms of CPU at 500 each), and a batch holds up to COUPON_PERSIST_BATCH claims.
const priorChunk = 500

// priorFailures is issue.Prior for claims: the redemption_failure rows of the batch's claims
// (users[i] and rids[i] are claim i's).
func priorFailures(ctx context.Context, tx *ent.Tx, users []int64, rids []string) (map[string]issue.Refusal, error) {
	out := map[string]issue.Refusal{}
	for lo := 0; lo < len(users); lo += priorChunk {
		hi := min(lo+priorChunk, len(users))
		rows, err := tx.RedemptionFailure.Query().
			Where(redemptionfailure.UserIDIn(users[lo:hi]...), redemptionfailure.RedemptionIDIn(rids[lo:hi]...)).
			Select(redemptionfailure.FieldRedemptionID, redemptionfailure.FieldReason, redemptionfailure.FieldDuplicateOf).All(ctx)
		if err != nil {
			return nil, fmt.Errorf("load failed claims: %w", err)
		}
		for _, f := range rows {
			r := issue.Refusal{Reason: f.Reason}
			if f.DuplicateOf != nil {
				r.DuplicateOf = *f.DuplicateOf
			}
			out[f.RedemptionID] = r
		}
	}
	return out, nil
}

// anyFailure is issue.WriteOptions.AnyPrior for claims: whether the template has any
// redemption_failure row (its template_id index, one probe).
func anyFailure(ctx context.Context, tx *ent.Tx, templateID int64) (bool, error) {
	some, err := tx.RedemptionFailure.Query().Where(redemptionfailure.TemplateID(templateID)).Exist(ctx)
	if err != nil {
		return false, fmt.Errorf("any failed claim of template %d: %w", templateID, err)
	}
	return some, nil
}

// recordFailures marks claims MySQL refused as failed with their reasons, on their users' shard
// (such a user is told FAILED with the reason, never "claimed" without a coupon).
func recordFailures(ctx context.Context, tx *ent.Tx, failed []issue.Refusal) error {
	builders := make([]*ent.RedemptionFailureCreate, len(failed))
	for i, f := range failed {
		builders[i] = tx.RedemptionFailure.Create().SetUserID(f.UserID).SetTemplateID(f.TemplateID).
			SetRedemptionID(f.RedemptionID).SetReason(f.Reason)
		if f.DuplicateOf != "" {
			builders[i].SetDuplicateOf(f.DuplicateOf)
		}
	}
	if err := tx.RedemptionFailure.CreateBulk(builders...).Exec(ctx); err != nil {
		return fmt.Errorf("record failed claims: %w", err)
	}
	return nil
}

// auditDrift writes, in T3 on the template's shard, the audit entry of a batch with drifted claims
// (Redis accepted them, MySQL had no stock), for the reconciliation report.
func auditDrift(ctx context.Context, tx *ent.Tx, tpl *ent.CouponTemplate, drifted int) error {
	if drifted == 0 {
		return nil
	}
	err := template.WriteAudit(ctx, tx, template.AuditEntry{
		Shop: tpl.ShopNumber, TemplateID: tpl.ID, ActorRole: template.ActorSystem, Action: template.ActionStockDrift,
		Before: map[string]any{"databaseStock": tpl.Stock}, After: map[string]any{"failedClaims": drifted},
	})
	if err != nil {
		return fmt.Errorf("record drift: %w", err)
	}
	slog.WarnContext(ctx, "stock drift: Redis accepted claims the database has no stock for",
		"template", tpl.ID, "failed", drifted)
	return nil
}
