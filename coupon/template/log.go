package template

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/coupontemplatelog"

	"entgo.io/ent/dialect/sql"
)

// LogEntry is one entry of a template's audit trail as the API shows it.
type LogEntry struct {
	ID     int64
	Actor  string // "<ROLE>:<user id>", or "SYSTEM"
	Action string
	At     time.Time
	Before *string // JSON object, nil when the entry has none
	After  *string
}

// Log returns the page k of template id's audit trail, newest first (highest id first), with the
// entries' total. A merchant sees only its own shop's SHOP templates, the platform all; anyone else,
// and an unknown id, gets coupon.ErrNotFound.
func (a *Admin) Log(ctx context.Context, actor coupon.Actor, id int64, k coupon.Keyset) (coupon.Page[LogEntry], error) {
	row, err := a.db.CouponTemplate.Query().Where(coupontemplate.ID(id)).
		Select(coupontemplate.FieldShopNumber, coupontemplate.FieldSource).Only(ctx)
	if ent.IsNotFound(err) || (err == nil && !actor.ManagesTemplate(row.Source, row.ShopNumber)) {
		return coupon.Page[LogEntry]{}, coupon.ErrNotFound
	}
	if err != nil {
		return coupon.Page[LogEntry]{}, fmt.Errorf("template log: %w", err)
	}
	q := a.db.CouponTemplateLog.Query().Where(coupontemplatelog.ShopNumber(row.ShopNumber), coupontemplatelog.TemplateID(id))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return coupon.Page[LogEntry]{}, fmt.Errorf("count template log: %w", err)
	}
	order := sql.OrderDesc()
	switch {
	case k.Backward:
		order = sql.OrderAsc()
		if k.Before > 0 {
			q = q.Where(coupontemplatelog.IDGT(k.Before))
		}
	case k.After > 0:
		q = q.Where(coupontemplatelog.IDLT(k.After))
	}
	rows, err := q.Order(coupontemplatelog.ByID(order)).Limit(k.Size + 1).All(ctx)
	if err != nil {
		return coupon.Page[LogEntry]{}, fmt.Errorf("template log: %w", err)
	}
	return coupon.NewPage(rows, k, total, logEntry), nil
}

// logEntry is a coupon_template_log row as a LogEntry.
func logEntry(r *ent.CouponTemplateLog) LogEntry {
	e := LogEntry{ID: r.ID, Actor: r.ActorRole, Action: r.Action, At: r.CreatedAt, Before: jsonOf(r.Before), After: jsonOf(r.After)}
	if r.ActorRole != ActorSystem {
		e.Actor += ":" + strconv.FormatInt(r.ActorID, 10)
	}
	return e
}

// jsonOf is m as a JSON object, nil for none.
func jsonOf(m map[string]any) *string {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil // decoded from a JSON column: cannot fail
	}
	s := string(b)
	return &s
}
