package issue

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"

	"coupond/ent"
)

// loadSQLHead and loadSQLTail are LOAD DATA LOCAL INFILE of coupons into user_coupon from a go-sql-driver reader handler
// (its name follows): tab-separated values, a row a line, backslash the escape character, NULL as
// \N. Each setting is spelled as a hex literal, so the session's sql_mode (NO_BACKSLASH_ESCAPES)
// cannot change it.
const (
	loadSQLHead = "LOAD DATA LOCAL INFILE 'Reader::"
	loadSQLTail = "' INTO TABLE `user_coupon` CHARACTER SET utf8mb4 FIELDS TERMINATED BY X'09' ESCAPED BY X'5C' " +
		"LINES TERMINATED BY X'0A' (" + couponColumns + ")"
)

// loadLines are the lines of a LOAD DATA file (loadSQLTail).
var loadLines = rowText{rowSep: "\n", valueSep: '\t', null: `\N`, str: appendLoadString}

// loadHandlers numbers the reader handlers, so concurrent loads never share a name.
var loadHandlers atomic.Int64

// localInfileRefused is set once the server refused LOAD DATA LOCAL INFILE (MySQL 8's default
// local_infile=OFF): from then on the process writes coupons by INSERT.
var localInfileRefused atomic.Bool

// writeChunk is the one place that chooses how coupons are written: rows by LOAD DATA LOCAL
// INFILE, unless the database is Vitess (vitess: vtgate takes no LOAD DATA) or the server has
// refused local files, in which case by a multi-row INSERT. A refusal met here is remembered (and
// logged once) and the rows are written by INSERT in the same transaction (the refused statement
// changed nothing). It returns how many rows were written: LOAD DATA LOCAL skips a row meeting a
// unique key (a warning, not an error), an INSERT fails instead. The text is rendered in *bp,
// unless c holds the LOAD DATA lines already (Prepare).
func writeChunk(ctx context.Context, tx *ent.Tx, c preparedChunk, vitess bool, bp *[]byte) (int64, error) {
	rows := c.rows
	if !vitess && !localInfileRefused.Load() {
		data := c.load
		if data == nil {
			data = loadLines.appendRows((*bp)[:0], rows)
			*bp = data
		}
		n, err := loadRows(ctx, tx, data)
		if !refusesLocalInfile(err) {
			return n, err
		}
		if localInfileRefused.CompareAndSwap(false, true) {
			slog.WarnContext(ctx, "MySQL refuses LOAD DATA LOCAL INFILE (local_infile=OFF): coupons are written by multi-row INSERT from now on", "err", err)
		}
	}
	return insertRows(ctx, tx, rows, bp)
}

// loadRows writes coupons with one LOAD DATA LOCAL INFILE of their lines (data), streamed to the
// server by a reader handler registered for this statement alone, and returns the rows loaded.
func loadRows(ctx context.Context, tx *ent.Tx, data []byte) (int64, error) {
	name := "coupond-coupons-" + strconv.FormatInt(loadHandlers.Add(1), 10)
	mysql.RegisterReaderHandler(name, func() io.Reader { return bytes.NewReader(data) })
	defer mysql.DeregisterReaderHandler(name)
	res, err := tx.ExecContext(ctx, loadSQLHead+name+loadSQLTail)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// refusesLocalInfile reports whether err is the server refusing LOAD DATA LOCAL INFILE: MariaDB's
// 4166 (ER_LOAD_INFILE_CAPABILITY_DISABLED), MySQL 8's 3948 (ER_CLIENT_LOCAL_FILES_DISABLED), or
// the older servers' 1148 (ER_NOT_ALLOWED_COMMAND).
func refusesLocalInfile(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 4166 || me.Number == 3948 || me.Number == 1148)
}

// appendLoadString appends s as a LOAD DATA field (loadSQLTail): backslash, tab and newline escaped
// with a backslash, every other byte as it is, so no byte of s (a client's requestId) can end its
// field or its row, or read as \N.
func appendLoadString(q []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			q = append(q, '\\', '\\')
		case '\t':
			q = append(q, '\\', 't')
		case '\n':
			q = append(q, '\\', 'n')
		default:
			q = append(q, c)
		}
	}
	return q
}
