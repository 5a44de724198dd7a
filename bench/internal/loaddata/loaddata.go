// Package loaddata feeds rows to MySQL/MariaDB's LOAD DATA LOCAL INFILE from Go (go-sql-driver's
// reader handlers), for the benchmarks that compare coupond's writes with the engine's bulk load.
package loaddata

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"
)

// Null is a NULL field (written \N).
var Null any = nullField{}

type nullField struct{}

// Writer writes rows in LOAD DATA's default text format: fields separated by tabs, rows by
// newlines, tab, newline and backslash escaped with a backslash, NULL as \N.
type Writer struct {
	w   *bufio.Writer
	row int
}

// NewWriter returns a Writer onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriterSize(w, 256<<10)} }

// Row writes one row: int64, int, string or Null fields.
func (w *Writer) Row(fields ...any) error {
	for i, f := range fields {
		if i > 0 {
			w.w.WriteByte('\t')
		}
		switch v := f.(type) {
		case int64:
			w.w.WriteString(strconv.FormatInt(v, 10))
		case int:
			w.w.WriteString(strconv.Itoa(v))
		case string:
			w.w.WriteString(escaper.Replace(v))
		case nullField:
			w.w.WriteString(`\N`)
		default:
			return fmt.Errorf("loaddata: field %d: unsupported type %T", i, f)
		}
	}
	w.row++
	return w.w.WriteByte('\n')
}

// Rows is how many rows were written.
func (w *Writer) Rows() int { return w.row }

// Flush writes what is buffered.
func (w *Writer) Flush() error { return w.w.Flush() }

var escaper = strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`)

var handlers atomic.Int64

// Exec runs LOAD DATA LOCAL INFILE of r into table's columns on e (a *sql.DB, *sql.Conn or
// *sql.Tx) and returns the rows loaded. The DSN needs nothing special: the reader is registered
// under a name of its own for the one statement (go-sql-driver allows Reader:: names always).
func Exec(e interface {
	Exec(query string, args ...any) (sql.Result, error)
}, table string, columns []string, r io.Reader) (int64, error) {
	name := "loaddata" + strconv.FormatInt(handlers.Add(1), 10)
	mysql.RegisterReaderHandler(name, func() io.Reader { return r })
	defer mysql.DeregisterReaderHandler(name)
	res, err := e.Exec("LOAD DATA LOCAL INFILE 'Reader::" + name + "' INTO TABLE `" + table + "` (`" + strings.Join(columns, "`, `") + "`)")
	if err != nil {
		return 0, fmt.Errorf("LOAD DATA into %s: %w", table, err)
	}
	return res.RowsAffected()
}
