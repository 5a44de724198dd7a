package issue

import (
	"context"
	"fmt"
	"slices"

	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/lua"
)

// Undistributed returns the rows of distribution task taskID's batch in flight that distribute.lua
// accepted (rows, DistributeOK only) and MySQL holds no coupon for yet: each still holds a unit of
// the cached stock and a count in its user's claim counter. Queries carry user_id, 500 rows each.
func Undistributed(ctx context.Context, tx *ent.Tx, templateID, taskID int64, rows []lua.JournalRow) ([]lua.JournalRow, error) {
	var out []lua.JournalRow
	for chunk := range slices.Chunk(rows, 500) {
		users := make([]int64, len(chunk))
		rids := make([]string, len(chunk))
		for i, r := range chunk {
			users[i], rids[i] = r.UserID, DistributionRedemptionID(taskID, r.Row)
		}
		held, err := tx.UserCoupon.Query().Where(usercoupon.UserIDIn(users...),
			usercoupon.TemplateID(templateID), usercoupon.RedemptionIDIn(rids...)).
			Select(usercoupon.FieldRedemptionID).Strings(ctx)
		if err != nil {
			return nil, fmt.Errorf("distributed coupons: %w", err)
		}
		have := make(map[string]bool, len(held))
		for _, rid := range held {
			have[rid] = true
		}
		for i, r := range chunk {
			if !have[rids[i]] {
				out = append(out, r)
			}
		}
	}
	return out, nil
}
