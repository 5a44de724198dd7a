// Package sqlcapture records the SQL a process sends to MySQL, grouped by transaction, for the
// sharding gate (sharding/): a database/sql connector wrapping go-sql-driver's that hands every
// statement, with its arguments, to a Recorder, tagged with the transaction it ran in (or none:
// autocommit) and with the path (a label the test sets) that was running. Arguments are rendered as
// literals after Normalize makes them independent of the run (ids, times, random strings), so the
// recorded files are stable and a SQL planner can replay them.
package sqlcapture

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Recorder collects the statements of each path. The zero value is not usable; see NewRecorder.
type Recorder struct {
	mu    sync.Mutex
	path  string
	paths map[string]*pathLog
}

// pathLog is what one path ran: its committed or rolled-back transactions and its autocommit
// statements, each normalised; a block that repeats one already recorded is kept once.
type pathLog struct {
	blocks map[string]bool
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{paths: map[string]*pathLog{}} }

// Path makes name the path that statements from now on belong to ("" drops them).
func (r *Recorder) Path(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.path = name
	if name != "" && r.paths[name] == nil {
		r.paths[name] = &pathLog{blocks: map[string]bool{}}
	}
}

// Paths returns the names of the paths that recorded something, sorted.
func (r *Recorder) Paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for name, p := range r.paths {
		if len(p.blocks) > 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// File renders path's recording: each transaction as BEGIN; …; COMMIT; (a rolled-back one ends in
// ROLLBACK;) and each autocommit statement alone, under a "-- tx" or "-- autocommit" comment, the
// blocks sorted so the file does not depend on the order concurrent work finished in.
func (r *Recorder) File(path string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.paths[path]
	if p == nil {
		return ""
	}
	blocks := make([]string, 0, len(p.blocks))
	for b := range p.blocks {
		blocks = append(blocks, b)
	}
	sort.Strings(blocks)
	return "-- sharding gate capture of path " + path + "; written by sharding_capture_test.go, do not edit\n\n" +
		strings.Join(blocks, "\n")
}

// add records block (a rendered transaction or statement) under the current path.
func (r *Recorder) add(block string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.path != "" {
		r.paths[r.path].blocks[block] = true
	}
}

// Connector returns a connector of the MySQL at dsn (go-sql-driver format, as store.NormalizeDSN
// leaves it) whose connections report every statement to r. Open it with sql.OpenDB.
func (r *Recorder) Connector(dsn string) (driver.Connector, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	inner, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return &connector{inner: inner, rec: r}, nil
}

type connector struct {
	inner driver.Connector
	rec   *Recorder
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &wrapped{mysqlConn: cn.(mysqlConn), rec: c.rec}, nil
}

func (c *connector) Driver() driver.Driver { return c.inner.Driver() }

// mysqlConn is the set of interfaces go-sql-driver's connection implements.
type mysqlConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.NamedValueChecker
}

// wrapped is one connection; while inTx, tx collects the statements of its open transaction.
type wrapped struct {
	mysqlConn
	rec  *Recorder
	inTx bool
	tx   []string
}

// statement records one query: each of its statements (a query may hold several, the
// checkout's START TRANSACTION and writes) in the open transaction, or alone. A transaction begun
// by a START TRANSACTION statement ends at a COMMIT or ROLLBACK statement, as one begun by
// BeginTx ends at Commit or Rollback.
func (w *wrapped) statement(query string, args []driver.NamedValue) {
	for _, stmt := range split(Render(query, args)) {
		switch {
		case stmt == "START TRANSACTION;" && !w.inTx:
			w.inTx, w.tx = true, nil
		case (stmt == "COMMIT;" || stmt == "ROLLBACK;") && w.inTx:
			w.end(strings.TrimSuffix(stmt, ";"))
		case w.inTx:
			w.tx = append(w.tx, stmt)
		default:
			w.rec.add("-- autocommit\n" + stmt + "\n")
		}
	}
}

// split cuts a rendered query into its statements at the semicolons outside quotes, each ended by
// ";" and trimmed.
func split(rendered string) []string {
	var out []string
	start, inQuote := 0, byte(0)
	for j := 0; j < len(rendered); j++ {
		switch c := rendered[j]; {
		case inQuote != 0:
			if c == inQuote {
				inQuote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			inQuote = c
		case c == ';':
			if stmt := strings.TrimSpace(rendered[start:j]); stmt != "" {
				out = append(out, stmt+";")
			}
			start = j + 1
		}
	}
	if stmt := strings.TrimSpace(rendered[start:]); stmt != "" {
		out = append(out, stmt+";")
	}
	return out
}

func (w *wrapped) end(how string) {
	if len(w.tx) > 0 {
		w.rec.add("-- tx\nBEGIN;\n" + strings.Join(w.tx, "\n") + "\n" + how + ";\n")
	}
	w.inTx, w.tx = false, nil
}

func (w *wrapped) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := w.mysqlConn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	w.inTx, w.tx = true, nil
	return &wrappedTx{Tx: tx, conn: w}, nil
}

func (w *wrapped) Begin() (driver.Tx, error) {
	return w.BeginTx(context.Background(), driver.TxOptions{})
}

func (w *wrapped) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	res, err := w.mysqlConn.ExecContext(ctx, query, args)
	if err != driver.ErrSkip {
		w.statement(query, args)
	}
	return res, err
}

func (w *wrapped) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := w.mysqlConn.QueryContext(ctx, query, args)
	if err != driver.ErrSkip {
		w.statement(query, args)
	}
	return rows, err
}

// PrepareContext is refused: the DSN interpolates parameters (store.NormalizeDSN), so
// database/sql never needs a prepared statement, and one would escape the recording.
func (w *wrapped) PrepareContext(context.Context, string) (driver.Stmt, error) {
	return nil, fmt.Errorf("sqlcapture: prepared statements are not recorded; use interpolateParams=true")
}

func (w *wrapped) Prepare(query string) (driver.Stmt, error) {
	return w.PrepareContext(context.Background(), query)
}

type wrappedTx struct {
	driver.Tx
	conn *wrapped
}

func (t *wrappedTx) Commit() error {
	err := t.Tx.Commit()
	t.conn.end("COMMIT")
	return err
}

func (t *wrappedTx) Rollback() error {
	err := t.Tx.Rollback()
	t.conn.end("ROLLBACK")
	return err
}

// Stable values that Render puts in place of run-dependent ones.
const (
	// StableID replaces generated ids (snowflakes: at least 10¹² ). No table is sharded by such
	// an id, so routing does not depend on them; user ids and shop numbers in tests are small and
	// kept.
	StableID = "4242424242424"
	// StableTime replaces every time.
	StableTime = "'2026-01-01 00:00:00'"
	// StableString replaces every string that is not an enum value or a short number.
	StableString = "'s'"
)

var (
	enumLike    = regexp.MustCompile(`^[A-Z][A-Z_]{0,31}$`) // and not a coupon code (16 letters)
	shortNumber = regexp.MustCompile(`^-?[0-9]{1,9}(\.[0-9]+)?$`)
	bigInt      = regexp.MustCompile(`[0-9]{13,}`) // also within a literal: a distribution row's redemption id d<task>-<row>
	timeLit     = regexp.MustCompile(`'[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:.]+'`)
)

// Render returns query with its ? placeholders replaced by args as normalised SQL literals, its
// own literal ids and times normalised too, ended by ";".
func Render(query string, args []driver.NamedValue) string {
	var b strings.Builder
	i := 0
	inQuote := byte(0)
	for j := 0; j < len(query); j++ {
		c := query[j]
		switch {
		case inQuote != 0:
			if c == inQuote {
				inQuote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			inQuote = c
		case c == '?' && i < len(args):
			b.WriteString(literal(args[i].Value))
			i++
			continue
		}
		b.WriteByte(c)
	}
	out := bigInt.ReplaceAllString(b.String(), StableID)
	out = timeLit.ReplaceAllString(out, StableTime)
	return strings.TrimRight(strings.TrimSpace(out), ";") + ";"
}

// literal is v as a normalised SQL literal.
func literal(v driver.Value) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		if x >= 1e12 || x <= -1e12 {
			return StableID
		}
		return strconv.FormatInt(x, 10)
	case uint64:
		if x >= 1e12 {
			return StableID
		}
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		if x {
			return "1"
		}
		return "0"
	case time.Time:
		return StableTime
	case []byte:
		return stringLiteral(string(x))
	case string:
		return stringLiteral(x)
	default:
		return StableString
	}
}

func stringLiteral(s string) string {
	if (enumLike.MatchString(s) && (len(s) != 16 || strings.Contains(s, "_"))) || shortNumber.MatchString(s) {
		return "'" + s + "'"
	}
	return StableString
}

// OpenDB opens a *sql.DB over the MySQL at dsn whose statements r records.
func (r *Recorder) OpenDB(dsn string) (*sql.DB, error) {
	c, err := r.Connector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}
