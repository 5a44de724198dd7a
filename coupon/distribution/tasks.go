package distribution

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"entgo.io/ent/dialect/sql"

	"coupond/coupon"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontask"
	"coupond/ent/coupontaskfailure"
	"coupond/ent/predicate"
	"coupond/store"
)

// Get returns the task when the actor may see it (a merchant its shop's, the platform any), else
// coupon.ErrNotFound, as for an unknown id.
func (s *Service) Get(ctx context.Context, actor coupon.Actor, id int64) (*Task, error) {
	q := s.db.CouponTask.Query().Where(coupontask.ID(id))
	switch actor.Role {
	case coupon.RoleMerchant:
		q = q.Where(coupontask.ShopNumber(actor.Shop))
	case coupon.RolePlatform:
	default:
		return nil, coupon.ErrNotFound
	}
	t, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, coupon.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &Task{t}, nil
}

// Filter narrows a task listing.
type Filter struct {
	ShopNumber *int64 // platform only; merchants always see their own shop
	Status     *coupontask.Status
	TemplateID *int64
}

// List returns the page k of the tasks the actor may see matching f (a merchant its shop's, the
// platform every shop's or f.ShopNumber's), newest first, with the count of all matches.
func (s *Service) List(ctx context.Context, actor coupon.Actor, f Filter, k coupon.Keyset) (coupon.Page[*Task], error) {
	var where []predicate.CouponTask
	switch {
	case actor.Role == coupon.RoleMerchant:
		where = append(where, coupontask.ShopNumber(actor.Shop))
	case actor.Role != coupon.RolePlatform:
		return coupon.Page[*Task]{}, coupon.ErrNotFound
	case f.ShopNumber != nil:
		where = append(where, coupontask.ShopNumber(*f.ShopNumber))
	}
	if f.Status != nil {
		where = append(where, coupontask.StatusEQ(*f.Status))
	}
	if f.TemplateID != nil {
		where = append(where, coupontask.TemplateID(*f.TemplateID))
	}
	total, err := s.db.CouponTask.Query().Where(where...).Count(ctx)
	if err != nil {
		return coupon.Page[*Task]{}, fmt.Errorf("count tasks: %w", err)
	}
	q := s.db.CouponTask.Query().Where(where...)
	order := sql.OrderDesc()
	switch {
	case k.Backward:
		order = sql.OrderAsc()
		if k.Before > 0 {
			q = q.Where(coupontask.IDGT(k.Before))
		}
	case k.After > 0:
		q = q.Where(coupontask.IDLT(k.After))
	}
	rows, err := q.Order(coupontask.ByID(order)).Limit(k.Size + 1).All(ctx)
	if err != nil {
		return coupon.Page[*Task]{}, fmt.Errorf("list tasks: %w", err)
	}
	return coupon.NewPage(rows, k, total, func(r *ent.CouponTask) *Task { return &Task{r} }), nil
}

// Failures returns up to size failure rows of the task after row number after, in row order, and
// whether more follow. The caller has checked the task is the actor's (Get).
func (s *Service) Failures(ctx context.Context, taskID int64, after, size int) ([]Failure, bool, error) {
	rows, err := s.db.CouponTaskFailure.Query().
		Where(coupontaskfailure.TaskID(taskID), coupontaskfailure.RowNumGT(after)).
		Order(coupontaskfailure.ByRowNum()).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("list failures: %w", err)
	}
	more := len(rows) > size
	if more {
		rows = rows[:size]
	}
	out := make([]Failure, len(rows))
	for i, r := range rows {
		out[i] = Failure{RowNum: r.RowNum, UserID: r.UserID, Code: r.Code, Reason: r.Reason}
	}
	return out, more, nil
}

// FailureCounts counts the task's failure rows by code, the largest count first (ties: by code);
// a task without failures has none. One grouped query over the task's rows (the (task_id,
// row_num) key). The caller has checked the task is the actor's (Get).
func (s *Service) FailureCounts(ctx context.Context, taskID int64) ([]*FailureCount, error) {
	out := []*FailureCount{}
	err := s.db.CouponTaskFailure.Query().Where(coupontaskfailure.TaskID(taskID)).
		GroupBy(coupontaskfailure.FieldCode).
		Aggregate(ent.As(ent.Count(), "count")).
		Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("count failures: %w", err)
	}
	slices.SortFunc(out, func(a, b *FailureCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Code, b.Code))
	})
	return out, nil
}

// Cancel cancels the actor's task: a PENDING one at once (completed), an IN_PROGRESS one at its
// next batch boundary (its worker records completedAt when it stops; counts stay exact). Any
// other status is INVALID_STATE.
func (s *Service) Cancel(ctx context.Context, actor coupon.Actor, id int64) (*Task, error) {
	if _, err := s.Get(ctx, actor, id); err != nil {
		return nil, err
	}
	now := s.now()
	var n int
	err := store.WithTx(ctx, s.db, func(tx *ent.Tx) error {
		var err error
		n, err = tx.CouponTask.Update().Where(coupontask.ID(id), coupontask.StatusEQ(coupontask.StatusPENDING)).
			SetStatus(coupontask.StatusCANCELED).SetCompletedAt(now).Save(ctx)
		if err == nil && n == 0 {
			n, err = tx.CouponTask.Update().Where(coupontask.ID(id), coupontask.StatusEQ(coupontask.StatusIN_PROGRESS)).
				SetStatus(coupontask.StatusCANCELED).Save(ctx)
		}
		if err != nil || n == 0 {
			return err
		}
		row, err := tx.CouponTask.Get(ctx, id)
		if err != nil {
			return err
		}
		return auditTask(ctx, tx, actor, row, template.ActionTaskCancel)
	}, nil)
	if err != nil {
		return nil, err
	}
	t, err := s.Get(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return t, &coupon.Error{Code: coupon.CodeInvalidState, Field: []string{"taskId"},
			Message: fmt.Sprintf("a %s task cannot be canceled", t.Status)}
	}
	s.announce(ctx, id)
	return t, nil
}

// auditTask records in the task's template's audit trail that the actor (the zero Actor: the
// system) created, cancelled or ended the task (action), with what the task is at that moment.
func auditTask(ctx context.Context, tx *ent.Tx, actor coupon.Actor, t *ent.CouponTask, action string) error {
	after := map[string]any{"taskId": strconv.FormatInt(t.ID, 10), "name": t.Name, "fileName": t.FileName,
		"sendType": t.SendType, "status": t.Status, "processedRows": t.ProcessedRows,
		"successCount": t.SuccessCount, "failCount": t.FailCount}
	if t.SendTime != nil {
		after["sendTime"] = t.SendTime.UTC()
	}
	role := string(actor.Role)
	if role == "" {
		role = template.ActorSystem
	}
	return template.WriteAudit(ctx, tx, template.AuditEntry{Shop: t.ShopNumber, TemplateID: t.TemplateID,
		ActorID: actor.UserID, ActorRole: role, Action: action, After: after})
}
