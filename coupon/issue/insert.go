package issue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"entgo.io/ent/dialect/sql/sqlgraph"

	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/idgen"
)

// rowsPerInsert is how many coupons one INSERT statement carries: a distribution batch of 5,000
// in one statement of about 1 MB (well under max_allowed_packet's 16 MiB default), a claim
// batch in one.
const rowsPerInsert = 5000

// errUniqueKey is an INSERT of coupons that met a unique key (a replay, a duplicate requestId, or
// a slot taken meanwhile): Write rolls the group back and does it again reading the coupons whole.
var errUniqueKey = errors.New("issue: a coupon met a unique key")

// insertSQL is the head of insertCoupons' statements: the columns each tuple gives, in order.
const insertSQL = "INSERT INTO `user_coupon` (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, " +
	"`receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `request_id`, `stock_batch_id`) VALUES "

// insertBufs are statement buffers, reused across batches: a 5,000-row statement is built without
// growing a new megabyte each time.
var insertBufs = sync.Pool{New: func() any { return new([]byte) }}

// insertCoupons inserts the items' coupons, each with a fresh id and carrying header, in
// multi-row INSERTs of up to rowsPerInsert rows written as SQL text (no placeholders to bind or
// interpolate, no ent builder per row), and records them in w as the rows now hold them: the row
// Create would build (created_at = updated_at = valid_start_time = At), status UNUSED. A unique key
// met is errUniqueKey.
func insertCoupons(ctx context.Context, tx *ent.Tx, header int64, items []Item, w *Written) error {
	bp := insertBufs.Get().(*[]byte)
	defer insertBufs.Put(bp)
	for chunk := range slices.Chunk(items, rowsPerInsert) {
		rows := make([]ent.UserCoupon, len(chunk))
		q := append((*bp)[:0], insertSQL...)
		for i, it := range chunk {
			uc := &rows[i]
			*uc = ent.UserCoupon{ID: idgen.Next(), CreatedAt: it.At, UpdatedAt: it.At, UserID: it.UserID, TemplateID: it.TemplateID,
				RedemptionID: it.RedemptionID, ReceiveCount: it.ReceiveCount, Source: it.Source, Status: usercoupon.StatusUNUSED,
				ValidStartTime: it.At, ValidEndTime: it.End, StockBatchID: &header}
			if it.RequestID != "" {
				uc.RequestID = &it.RequestID
			}
			if i > 0 {
				q = append(q, ',')
			}
			q = appendCoupon(q, uc)
		}
		*bp = q
		res, err := tx.ExecContext(ctx, string(q))
		if sqlgraph.IsUniqueConstraintError(err) {
			return fmt.Errorf("insert coupons: %w: %w", errUniqueKey, err)
		}
		if err != nil {
			return fmt.Errorf("insert coupons: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n != int64(len(chunk)) {
			return fmt.Errorf("insert coupons: %d rows of %d inserted: %v", n, len(chunk), err)
		}
		for i := range rows {
			w.Issued = append(w.Issued, &rows[i])
		}
		w.Inserted += len(chunk)
		w.Carried += len(chunk)
	}
	return nil
}

// appendCoupon appends uc's tuple in insertSQL's column order.
func appendCoupon(q []byte, uc *ent.UserCoupon) []byte {
	q = append(q, '(')
	q = strconv.AppendInt(q, uc.ID, 10)
	q = appendTime(append(q, ','), uc.CreatedAt)
	q = appendTime(append(q, ','), uc.UpdatedAt)
	q = strconv.AppendInt(append(q, ','), uc.UserID, 10)
	q = strconv.AppendInt(append(q, ','), uc.TemplateID, 10)
	q = appendString(append(q, ','), uc.RedemptionID)
	q = strconv.AppendInt(append(q, ','), int64(uc.ReceiveCount), 10)
	q = appendString(append(q, ','), string(uc.Source))
	q = appendString(append(q, ','), string(uc.Status))
	q = appendTime(append(q, ','), uc.ValidStartTime)
	q = appendTime(append(q, ','), uc.ValidEndTime)
	q = append(q, ',')
	if uc.RequestID == nil {
		q = append(q, "NULL"...)
	} else {
		q = appendString(q, *uc.RequestID)
	}
	q = strconv.AppendInt(append(q, ','), *uc.StockBatchID, 10)
	return append(q, ')')
}

// appendTime appends t as a DATETIME literal in UTC (the connection's time zone, store.NormalizeDSN),
// to the nanosecond as the driver sends a bound time (the column keeps milliseconds).
func appendTime(q []byte, t time.Time) []byte {
	q = append(q, '\'')
	q = t.UTC().AppendFormat(q, "2006-01-02 15:04:05.999999999")
	return append(q, '\'')
}

// appendString appends s as a string literal: quoted when it is made of letters, digits and
// "-_.:" alone, else as a hex literal, so no byte of it (a client's requestId) is ever read as SQL
// whatever the session's sql_mode.
func appendString(q []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			const hex = "0123456789abcdef"
			q = append(q, "X'"...)
			for j := 0; j < len(s); j++ {
				q = append(q, hex[s[j]>>4], hex[s[j]&15])
			}
			return append(q, '\'')
		}
	}
	q = append(q, '\'')
	q = append(q, s...)
	return append(q, '\'')
}
