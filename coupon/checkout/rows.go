package checkout

import (
	"context"
	"database/sql"
	"strings"

	"coupond/ent"
	"coupond/ent/couponsettlement"
	"coupond/ent/usercoupon"

	"github.com/shopspring/decimal"
)

// The hot path's statements (a lock's read of the coupon with its order, its transaction's UPDATE,
// INSERT and locking read of the order's live settlements, a read of a settlement by order and
// coupon) as plain statements over precomputed text, the rows scanned straight into ent's row
// types: ent's builders cost a lock and a confirmation hundreds of allocations each. The text is
// what ent's builders write for the same query, but for the lock's two reads of the order's live
// settlements (couponWithLive, liveOfOrderForUpdate), which no builder writes; the sharding capture
// (sharding/testdata) records them all. TestRowScannersCoverColumns fails when the schema gains a
// column the scanners do not read.

// querier runs a statement that returns rows: ent's Client or Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// selectColumns is the column list ent writes for table's columns.
func selectColumns(table string, columns []string) string {
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = "`" + table + "`.`" + c + "`"
	}
	return strings.Join(out, ", ")
}

const (
	// lockCouponSQL moves a coupon UNUSED → LOCKED for an order: SET updated_at, status, order_id,
	// discount_amount WHERE user_id, id, status (UNUSED) and valid_end_time > (now).
	lockCouponSQL = "UPDATE `user_coupon` SET `updated_at` = ?, `status` = ?, `order_id` = ?, `discount_amount` = ? WHERE " +
		"((`user_coupon`.`user_id` = ? AND `user_coupon`.`id` = ?) AND `user_coupon`.`status` = ?) AND `user_coupon`.`valid_end_time` > ?"
	// insertSettlementSQL writes a settlement, its columns in this order.
	insertSettlementSQL = "INSERT INTO `coupon_settlement` (`created_at`, `updated_at`, `user_id`, `order_id`, `coupon_id`, `template_id`, " +
		"`status`, `order_amount`, `discount_amount`, `payable_amount`, `lock_expires_at`, `live_coupon_id`, `live_slot`, `id`) " +
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

var (
	settlementSelect = "SELECT " + selectColumns(couponsettlement.Table, couponsettlement.Columns) + " FROM `coupon_settlement` WHERE "
	// settlementByRef finds the settlement of (user, order, coupon).
	settlementByRef = settlementSelect + "(`coupon_settlement`.`user_id` = ? AND `coupon_settlement`.`order_id` = ?) AND `coupon_settlement`.`coupon_id` = ? LIMIT 2"
	// settlementByCoupon finds the settlement of (order, coupon) of the holder of coupon (argument).
	settlementByCoupon = settlementSelect + "(`coupon_settlement`.`order_id` = ? AND `coupon_settlement`.`coupon_id` = ?) AND " +
		"`coupon_settlement`.`user_id` IN (SELECT `user_coupon`.`user_id` FROM `user_coupon` WHERE `user_coupon`.`id` = ?) LIMIT 2"
	// liveOfOrderForUpdate locks the live settlements of (user, order) and reads what stacking
	// needs of them (coupon, slot, discount; the whole rows cost MariaDB a third more CPU).
	liveOfOrderForUpdate = "SELECT `coupon_settlement`.`coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`discount_amount` " +
		"FROM `coupon_settlement` WHERE (`coupon_settlement`.`user_id` = ? AND `coupon_settlement`.`order_id` = ?) AND " +
		"`coupon_settlement`.`live_slot` IS NOT NULL FOR UPDATE"
	// couponWithLive reads a coupon joined with the live settlements of its holder's order (the
	// first argument), a row per live settlement (coupon, slot, discount) or one row of NULLs when
	// there is none; the condition naming the coupon follows. (A LEFT JOIN: MariaDB spends about
	// half the CPU on it that it spends on the same read with the settlements aggregated by a
	// JSON_ARRAYAGG subquery, which needs a temporary table.)
	couponWithLive = "SELECT " + selectColumns(usercoupon.Table, usercoupon.Columns) + ", `s`.`coupon_id`, `s`.`live_slot`, `s`.`discount_amount` " +
		"FROM `user_coupon` LEFT JOIN `coupon_settlement` AS `s` ON `s`.`user_id` = `user_coupon`.`user_id` AND `s`.`order_id` = ? " +
		"AND `s`.`live_slot` IS NOT NULL WHERE "
)

// settlementDest is where each column of couponsettlement.Columns scans into row.
func settlementDest(row *ent.CouponSettlement, column string) any {
	switch column {
	case couponsettlement.FieldID:
		return &row.ID
	case couponsettlement.FieldCreatedAt:
		return &row.CreatedAt
	case couponsettlement.FieldUpdatedAt:
		return &row.UpdatedAt
	case couponsettlement.FieldUserID:
		return &row.UserID
	case couponsettlement.FieldOrderID:
		return &row.OrderID
	case couponsettlement.FieldCouponID:
		return &row.CouponID
	case couponsettlement.FieldTemplateID:
		return &row.TemplateID
	case couponsettlement.FieldStatus:
		return &row.Status
	case couponsettlement.FieldOrderAmount:
		return &row.OrderAmount
	case couponsettlement.FieldDiscountAmount:
		return &row.DiscountAmount
	case couponsettlement.FieldPayableAmount:
		return &row.PayableAmount
	case couponsettlement.FieldLockExpiresAt:
		return &row.LockExpiresAt
	case couponsettlement.FieldLiveCouponID:
		return &row.LiveCouponID
	case couponsettlement.FieldLiveSlot:
		return &row.LiveSlot
	case couponsettlement.FieldPaidAt:
		return &row.PaidAt
	case couponsettlement.FieldRefundedAt:
		return &row.RefundedAt
	}
	return nil
}

// couponDest is where each column of usercoupon.Columns scans into uc.
func couponDest(uc *ent.UserCoupon, column string) any {
	switch column {
	case usercoupon.FieldID:
		return &uc.ID
	case usercoupon.FieldCreatedAt:
		return &uc.CreatedAt
	case usercoupon.FieldUpdatedAt:
		return &uc.UpdatedAt
	case usercoupon.FieldUserID:
		return &uc.UserID
	case usercoupon.FieldTemplateID:
		return &uc.TemplateID
	case usercoupon.FieldRedemptionID:
		return &uc.RedemptionID
	case usercoupon.FieldReceiveCount:
		return &uc.ReceiveCount
	case usercoupon.FieldSource:
		return &uc.Source
	case usercoupon.FieldStatus:
		return &uc.Status
	case usercoupon.FieldValidStartTime:
		return &uc.ValidStartTime
	case usercoupon.FieldValidEndTime:
		return &uc.ValidEndTime
	case usercoupon.FieldOrderID:
		return &uc.OrderID
	case usercoupon.FieldUsedAt:
		return &uc.UsedAt
	case usercoupon.FieldDiscountAmount:
		return &uc.DiscountAmount
	case usercoupon.FieldRequestID:
		return &uc.RequestID
	case usercoupon.FieldStockBatchID:
		return &uc.StockBatchID
	}
	return nil
}

// querySettlements runs query and scans every row it returns.
func querySettlements(ctx context.Context, q querier, query string, args ...any) ([]*ent.CouponSettlement, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*ent.CouponSettlement
	dest := make([]any, len(couponsettlement.Columns))
	for rows.Next() {
		row := &ent.CouponSettlement{}
		for i, c := range couponsettlement.Columns {
			dest[i] = settlementDest(row, c)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// querySettlement runs query, which finds at most one settlement (LIMIT 2): ent.NotFoundError
// when it finds none, an error when it finds two.
func querySettlement(ctx context.Context, q querier, query string, args ...any) (*ent.CouponSettlement, error) {
	rows, err := querySettlements(ctx, q, query, args...)
	switch {
	case err != nil:
		return nil, err
	case len(rows) == 0:
		return nil, &ent.NotFoundError{}
	case len(rows) > 1:
		return nil, &ent.NotSingularError{}
	}
	return rows[0], nil
}

// queryLives locks and reads the live settlements of (user, order) in tx (liveOfOrderForUpdate).
func queryLives(ctx context.Context, tx querier, userID, orderID int64) ([]live, error) {
	rows, err := tx.QueryContext(ctx, liveOfOrderForUpdate, userID, orderID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []live
	for rows.Next() {
		var l live
		if err := rows.Scan(&l.Coupon, &l.Slot, &l.Discount); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// queryCouponWithLive runs couponWithLive followed by where (a condition on user_coupon that
// names at most one coupon), its arguments the order's id and then args: the coupon
// (ent.NotFoundError when none; ent.NotSingularError when the rows name two) and the order's live
// settlements.
func queryCouponWithLive(ctx context.Context, q querier, orderID int64, where string, args ...any) (*ent.UserCoupon, []live, error) {
	rows, err := q.QueryContext(ctx, couponWithLive+where, append([]any{orderID}, args...)...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var uc *ent.UserCoupon
	var lives []live
	var liveCoupon sql.NullInt64
	var liveSlot sql.NullString
	var liveDiscount decimal.NullDecimal
	dest := make([]any, len(usercoupon.Columns)+3)
	dest[len(dest)-3], dest[len(dest)-2], dest[len(dest)-1] = &liveCoupon, &liveSlot, &liveDiscount
	for rows.Next() {
		row := &ent.UserCoupon{}
		for i, c := range usercoupon.Columns {
			dest[i] = couponDest(row, c)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, err
		}
		switch {
		case uc == nil:
			uc = row
		case row.ID != uc.ID:
			return nil, nil, &ent.NotSingularError{}
		}
		if liveCoupon.Valid {
			lives = append(lives, live{Coupon: liveCoupon.Int64, Slot: liveSlot.String, Discount: liveDiscount.Decimal})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if uc == nil {
		return nil, nil, &ent.NotFoundError{}
	}
	return uc, lives, nil
}
