package reconcile

import (
	"context"
	"fmt"
	"strconv"

	"coupond/coupon/keys"
	"coupond/ent/usercoupon"
)

// holders returns up to limit users holding coupons of template id, by user id above after (the
// (template_id, user_id) index: a range read, whatever the template's size), and the cursor of the
// next page (0 when this page reached the end).
func (r *Reconciler) holders(ctx context.Context, id, after int64, limit int) ([]int64, int64, error) {
	var rows []struct {
		UserID int64 `json:"user_id"`
	}
	err := r.db.UserCoupon.Query().Where(usercoupon.TemplateID(id), usercoupon.UserIDGT(after)).
		Unique(true).Order(usercoupon.ByUserID()).Limit(limit).Select(usercoupon.FieldUserID).Scan(ctx, &rows)
	if err != nil {
		return nil, 0, fmt.Errorf("holders of %d: %w", id, err)
	}
	users := make([]int64, len(rows))
	for i, row := range rows {
		users[i] = row.UserID
	}
	if len(users) < limit {
		return users, 0, nil
	}
	return users, users[len(users)-1], nil
}

// scanCounters runs one SCAN call (COUNT ScanCount) over the claim hashes from cursor, and returns
// the users it found per template and the next cursor (0: the keyspace was walked once). This
// finds counters MySQL knows nothing of (a claim Redis counted whose coupon never came).
func (r *Reconciler) scanCounters(ctx context.Context, cursor uint64) (map[int64][]int64, uint64, error) {
	found, next, err := r.rdb.Scan(ctx, cursor, keys.ClaimCounterPattern(), int64(r.cfg.ScanCount)).Result()
	if err != nil {
		return nil, 0, fmt.Errorf("scan claim counters: %w", err)
	}
	out := map[int64][]int64{}
	for _, k := range found {
		if tpl, user, ok := keys.ParseClaimCounter(k); ok {
			out[tpl] = append(out[tpl], user)
		}
	}
	return out, next, nil
}

// cursor reads one field of the reconciliation's cursors (0 when unset or unreadable).
func cursor(fields map[string]string, name string) int64 {
	n, _ := strconv.ParseInt(fields[name], 10, 64)
	return n
}
