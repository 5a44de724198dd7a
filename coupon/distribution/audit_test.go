package distribution_test

import (
	"testing"

	"coupond/coupon/reconcile"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontemplatelog"
	"coupond/testutil/stack"
)

// logOf is the template's audit trail, oldest first.
func logOf(t *testing.T, s *stack.Stack, tplID int64) []*ent.CouponTemplateLog {
	t.Helper()
	rows, err := s.DB.CouponTemplateLog.Query().Where(coupontemplatelog.TemplateID(tplID)).
		Order(ent.Asc(coupontemplatelog.FieldID)).All(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Creating and cancelling a task are in the template's trail, by the merchant; a batch MySQL
// trims for want of stock is a SYSTEM drift record.
func TestTaskChangesAndDistributionDriftAreAudited(t *testing.T) {
	s := stack.New(t, "dist", "audit", stack.Options{})
	tpl := s.Template(t, 10, 1, nil)
	task := create(t, s, tpl.ID, "a.csv", csvOf(1, 2))
	if _, err := s.Distribution.Cancel(s.Ctx, stack.Merchant, task.ID); err != nil {
		t.Fatal(err)
	}
	log := logOf(t, s, tpl.ID)
	if len(log) != 3 || log[1].Action != template.ActionTaskCreate || log[2].Action != template.ActionTaskCancel ||
		log[1].ActorRole != "MERCHANT" || log[1].ActorID != stack.Merchant.UserID || log[2].After["status"] != "CANCELED" {
		t.Fatalf("trail = %+v", log)
	}
	// MySQL holds 2 units where Redis shows 10: the batch issues 2 and records the drift of 2.
	if err := s.DB.CouponTemplate.UpdateOneID(tpl.ID).SetStock(2).Exec(s.Ctx); err != nil {
		t.Fatal(err)
	}
	second := create(t, s, tpl.ID, "b.csv", csvOf(1, 2, 3, 4))
	run(t, s, second.ID)
	run(t, s, second.ID) // a replayed end records nothing again
	log = logOf(t, s, tpl.ID)
	drift, end := log[len(log)-2], log[len(log)-1]
	if drift.Action != template.ActionStockDrift || drift.ActorRole != template.ActorSystem || drift.After["failedRows"] != float64(2) {
		t.Fatalf("drift entry = %+v", drift)
	}
	if end.Action != template.ActionTaskEnd || end.ActorRole != template.ActorSystem || end.After["status"] != "SUCCESS" ||
		end.After["successCount"] != float64(2) || end.After["failCount"] != float64(2) || len(log) != 6 {
		t.Fatalf("end entry = %+v (%d entries)", end, len(log))
	}
}

// A distribution batch between its deduction and its settlement holds units Redis took: the
// reconciliation counts the journaled rows without a coupon as pending, and the books balance at
// every step of the batch.
func TestReconciliationCountsDistributionBatchesInFlight(t *testing.T) {
	s := stack.New(t, "dist", "recon_flight", stack.Options{})
	rec := reconcile.New(s.DB, s.Redis, reconcile.Config{})
	tpl := s.Template(t, 10, 1, nil)
	if _, err := s.Redeemer.Redeem(s.Ctx, 1, tpl.ID, ""); err != nil { // user 1 is at the limit: refused at deduction
		t.Fatal(err)
	}
	task := create(t, s, tpl.ID, "a.csv", csvOf(1, 2, 3, 4, 5))
	// 4 rows plus the claim, until the batch's coupons are written (its T2); then the claim.
	wantPending := map[string]int{"shard deducted": 5, "deducted": 5, "reserving": 5, "reserved": 5, "written": 1, "committed": 1, "shard after-commit": 1, "after-commit": 1}
	seen := map[string]bool{}
	s.Distribution.SetStep(func(step string) {
		rep, err := rec.Check(s.Ctx, stack.Merchant, tpl.ID)
		if err != nil {
			t.Errorf("%s: %v", step, err)
			return
		}
		seen[step] = true
		if !rep.Balanced || rep.Pending != wantPending[step] {
			t.Errorf("after %s: balanced %v, pending %d (want %d), drift %q", step, rep.Balanced, rep.Pending, wantPending[step], rep.Drift)
		}
	})
	run(t, s, task.ID)
	s.Distribution.SetStep(nil)
	if !seen["deducted"] || !seen["reserving"] || !seen["reserved"] || !seen["written"] || !seen["committed"] || !seen["after-commit"] {
		t.Fatalf("steps seen: %v", seen)
	}
}
