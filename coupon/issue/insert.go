package issue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql/sqlgraph"

	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/idgen"
)

// rowsPerChunk is how many coupons one statement carries: a distribution batch of 5,000 in one
// statement of about 1 MB (well under max_allowed_packet's 16 MiB default, which bounds an
// INSERT), a claim batch in one.
const rowsPerChunk = 5000

// errUniqueKey is a chunk of coupons that met a unique key (a replay, a duplicate requestId, or a
// slot taken meanwhile): Write rolls the group back and does it again reading the coupons whole.
var errUniqueKey = errors.New("issue: a coupon met a unique key")

// couponColumns are the columns insertCoupons writes, in the order each row gives them.
const couponColumns = "`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, " +
	"`receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `request_id`, `stock_batch_id`"

// insertSQL is the head of a multi-row INSERT of coupons.
const insertSQL = "INSERT INTO `user_coupon` (" + couponColumns + ") VALUES "

// chunkBufs are statement (or LOAD DATA file) buffers, reused across batches: a 5,000-row chunk is
// rendered without growing a new megabyte each time.
var chunkBufs = sync.Pool{New: func() any { return new([]byte) }}

// insertCoupons writes the items' coupons, each with a fresh id and carrying header, in chunks of
// up to rowsPerChunk rows rendered as text (no placeholders to bind or interpolate, no ent builder
// per row) by writeChunk: LOAD DATA LOCAL INFILE, or a multi-row INSERT on Vitess (vitess) or
// where the server refuses local files. It records them in w as the rows now hold them: the row
// Create would build (created_at = updated_at = valid_start_time = At), status UNUSED. A unique
// key met is errUniqueKey (LOAD DATA skips such a row: a chunk written short is one too). A
// redemption id or requestId that is not valid UTF-8 of at most 64 bytes is an error before
// anything is written: an INSERT would be refused it, and LOAD DATA would store it mangled.
func insertCoupons(ctx context.Context, tx *ent.Tx, header int64, items []Item, vitess bool, w *Written) error {
	for chunk := range slices.Chunk(items, rowsPerChunk) {
		rows, err := newCoupons(header, chunk)
		if err != nil {
			return err
		}
		if err := insertChunk(ctx, tx, preparedChunk{rows: rows}, vitess, w); err != nil {
			return err
		}
	}
	return nil
}

// newCoupons are the coupons items become under header, each with a fresh id.
func newCoupons(header int64, items []Item) ([]ent.UserCoupon, error) {
	rows := make([]ent.UserCoupon, len(items))
	for i, it := range items {
		if err := checkText(it.Coupon); err != nil {
			return nil, fmt.Errorf("insert coupons: %w", err)
		}
		uc := &rows[i]
		*uc = ent.UserCoupon{ID: idgen.Next(), CreatedAt: it.At, UpdatedAt: it.At, UserID: it.UserID, TemplateID: it.TemplateID,
			RedemptionID: it.RedemptionID, ReceiveCount: it.ReceiveCount, Source: it.Source, Status: usercoupon.StatusUNUSED,
			ValidStartTime: it.At, ValidEndTime: it.End, StockBatchID: &header}
		if it.RequestID != "" {
			uc.RequestID = &it.RequestID
		}
	}
	return rows, nil
}

// insertChunk writes one chunk's coupons (writeChunk) and records them in w.
func insertChunk(ctx context.Context, tx *ent.Tx, c preparedChunk, vitess bool, w *Written) error {
	bp := chunkBufs.Get().(*[]byte)
	defer chunkBufs.Put(bp)
	n, err := writeChunk(ctx, tx, c, vitess, bp)
	if sqlgraph.IsUniqueConstraintError(err) {
		return fmt.Errorf("insert coupons: %w: %w", errUniqueKey, err)
	}
	if err != nil {
		return fmt.Errorf("insert coupons: %w", err)
	}
	if n != int64(len(c.rows)) {
		return fmt.Errorf("insert coupons: %w: %d rows of %d written", errUniqueKey, n, len(c.rows))
	}
	for i := range c.rows {
		w.Issued = append(w.Issued, &c.rows[i])
		w.Carried = append(w.Carried, c.rows[i].CreatedAt)
	}
	w.Inserted += len(c.rows)
	return nil
}

// Prepared is a group's coupons made and rendered before its T2 (Prepare).
type Prepared struct {
	items  []Item
	chunks []preparedChunk
}

// preparedChunk is up to rowsPerChunk coupons, with their LOAD DATA lines when rendered ahead.
type preparedChunk struct {
	rows []ent.UserCoupon
	load []byte
}

// Prepare makes the coupons items would become under r's header (as insertCoupons makes them:
// fresh ids) and, unless the coupons go by INSERT (vitess, or a server refusing local files:
// writeChunk), renders their LOAD DATA lines, outside any transaction, so that the T2 of a
// distribution group whose items are all written as they are (writeFirst) only sends them
// (WriteOptions.Prepared); a T2 that writes anything else makes its own rows.
func Prepare(r *Reservation, items []Item, vitess bool) (*Prepared, error) {
	p := &Prepared{items: items}
	for chunk := range slices.Chunk(items, rowsPerChunk) {
		rows, err := newCoupons(r.Header.ID, chunk)
		if err != nil {
			return nil, err
		}
		c := preparedChunk{rows: rows}
		if !vitess && !localInfileRefused.Load() {
			c.load = loadLines.appendRows(nil, rows)
		}
		p.chunks = append(p.chunks, c)
	}
	return p, nil
}

// checkText fails unless c's redemption id and requestId are valid UTF-8 that fits their columns.
func checkText(c Coupon) error {
	for _, f := range []struct {
		name, v string
		fits    func(string) error
	}{{"redemption id", c.RedemptionID, usercoupon.RedemptionIDValidator}, {"requestId", c.RequestID, usercoupon.RequestIDValidator}} {
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("%s %q of user %d is not valid UTF-8", f.name, f.v, c.UserID)
		}
		if err := f.fits(f.v); err != nil {
			return fmt.Errorf("%s %q of user %d: %w", f.name, f.v, c.UserID, err)
		}
	}
	return nil
}

// insertRows writes rows with one multi-row INSERT built in *bp, and returns the rows inserted.
func insertRows(ctx context.Context, tx *ent.Tx, rows []ent.UserCoupon, bp *[]byte) (int64, error) {
	q := append((*bp)[:0], insertSQL...)
	q = insertTuples.appendRows(q, rows)
	*bp = q
	res, err := tx.ExecContext(ctx, string(q))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// rowText is how a statement's text spells coupon rows, their values in couponColumns' order.
type rowText struct {
	rowBegin, rowEnd, rowSep string
	valueSep                 byte
	timeQuote                string
	null                     string
	str                      func(q []byte, s string) []byte
}

// insertTuples are the tuples of a multi-row INSERT.
var insertTuples = rowText{rowBegin: "(", rowEnd: ")", rowSep: ",", valueSep: ',', timeQuote: "'", null: "NULL", str: appendString}

// appendRows appends rows as f spells them.
func (f *rowText) appendRows(q []byte, rows []ent.UserCoupon) []byte {
	var at, end timeText // a distribution batch's rows share both times, a claim batch's its end
	for i := range rows {
		uc := &rows[i]
		if i > 0 {
			q = append(q, f.rowSep...)
		}
		q = append(q, f.rowBegin...)
		q = strconv.AppendInt(q, uc.ID, 10)
		q = at.append(f, append(q, f.valueSep), uc.CreatedAt)
		q = at.append(f, append(q, f.valueSep), uc.UpdatedAt)
		q = strconv.AppendInt(append(q, f.valueSep), uc.UserID, 10)
		q = strconv.AppendInt(append(q, f.valueSep), uc.TemplateID, 10)
		q = f.str(append(q, f.valueSep), uc.RedemptionID)
		q = strconv.AppendInt(append(q, f.valueSep), int64(uc.ReceiveCount), 10)
		q = f.str(append(q, f.valueSep), string(uc.Source))
		q = f.str(append(q, f.valueSep), string(uc.Status))
		q = at.append(f, append(q, f.valueSep), uc.ValidStartTime)
		q = end.append(f, append(q, f.valueSep), uc.ValidEndTime)
		q = append(q, f.valueSep)
		if uc.RequestID == nil {
			q = append(q, f.null...)
		} else {
			q = f.str(q, *uc.RequestID)
		}
		q = strconv.AppendInt(append(q, f.valueSep), *uc.StockBatchID, 10)
		q = append(q, f.rowEnd...)
	}
	return q
}

// timeText is the last time a row gave and its text: rows that give the same time again copy
// the text instead of formatting it.
type timeText struct {
	t    time.Time
	text []byte
}

// append appends t as f.appendTime would.
func (c *timeText) append(f *rowText, q []byte, t time.Time) []byte {
	if c.text == nil || !t.Equal(c.t) {
		c.t, c.text = t, f.appendTime(c.text[:0], t)
	}
	return append(q, c.text...)
}

// appendTime appends t as a DATETIME value in UTC (the connection's time zone, store.NormalizeDSN),
// to the nanosecond as the driver sends a bound time (the column keeps milliseconds).
func (f *rowText) appendTime(q []byte, t time.Time) []byte {
	q = append(q, f.timeQuote...)
	q = t.UTC().AppendFormat(q, "2006-01-02 15:04:05.999999999")
	return append(q, f.timeQuote...)
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
