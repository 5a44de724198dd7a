// Command insertsize measures how fast user_coupon takes the same rows by multi-row INSERT at
// several statement sizes against LOAD DATA LOCAL INFILE, each method into its own empty copy of
// the table (CREATE TABLE … LIKE user_coupon) in a database of its own (migrated afresh), one
// transaction per -batch rows as a distribution batch commits. It reports rows/s of each, and the
// latency of single-row INSERTs into the same table meanwhile (a probe standing for the claims'
// persister), which shows a table-level AUTO-INC lock when a method takes one: each LOAD DATA
// method is run twice, into a copy whose id is AUTO_INCREMENT (as before the migration
// user_coupon_id_assigned) and into one whose id is not (as migrated: coupond assigns snowflake
// ids itself); the multi-row INSERTs into a copy as migrated.
//
//	go run ./bench/insertsize -rows 200000            # see bench/README.md, "Insert size"
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"coupond/bench/internal/loaddata"
	"coupond/idgen"
	"coupond/migrations"
)

// columns are the user_coupon columns a distributed coupon is written with.
var columns = []string{"id", "created_at", "updated_at", "user_id", "template_id", "redemption_id",
	"receive_count", "source", "status", "valid_start_time", "valid_end_time", "request_id"}

// coupon is one row of user_coupon as distribution writes it.
type coupon struct {
	id, user    int64
	redemption  string
	at, validTo string
}

func main() {
	rows := flag.Int("rows", 200_000, "rows inserted by each method")
	sizes := flag.String("sizes", "100,500,1000,2000,5000", "rows per INSERT statement to measure")
	batch := flag.Int("batch", 5000, "rows per transaction (COUPON_DISTRIBUTION_BATCH)")
	mysqlSrv := flag.String("mysql", "root@tcp(127.0.0.1:3306)/", "MySQL server DSN, without database")
	dbName := flag.String("db", "coupond_bench_insertsize", "database created afresh for the run (dropped at the end unless -keep)")
	probe := flag.Duration("probe", 2*time.Millisecond, "pause between the probe's single-row INSERTs (0: no probe)")
	keep := flag.Bool("keep", false, "keep the database")
	flag.Parse()
	log.SetFlags(0)

	cfg, err := mysql.ParseDSN(*mysqlSrv + *dbName)
	check(err)
	cfg.InterpolateParams = true // as coupond's store opens MySQL
	dsn := cfg.FormatDSN()
	root, err := sql.Open("mysql", *mysqlSrv)
	check(err)
	_, err = root.Exec("DROP DATABASE IF EXISTS `" + *dbName + "`")
	check(err)
	check(migrations.EnsureDatabase(dsn))
	check(migrations.Apply(dsn))
	if !*keep {
		defer root.Exec("DROP DATABASE IF EXISTS `" + *dbName + "`")
	}
	db, err := sql.Open("mysql", dsn)
	check(err)
	db.SetMaxOpenConns(4)

	data := make([]coupon, *rows)
	now := time.Now().UTC()
	at, validTo := now.Format("2006-01-02 15:04:05.000"), now.Add(30*24*time.Hour).Format("2006-01-02 15:04:05.000")
	for i := range data {
		data[i] = coupon{id: idgen.Next(), user: 10_000_001 + int64(i), redemption: "d1-" + strconv.Itoa(i+2),
			at: at, validTo: validTo}
	}

	type method struct {
		name      string
		stmtRows  int
		autoInc   bool
		writeStmt func(tx *sql.Tx, table string, rows []coupon) error
	}
	var methods []method
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		check(err)
		methods = append(methods, method{name: "multi-row INSERT", stmtRows: n, writeStmt: insertRows})
	}
	for _, autoInc := range []bool{true, false} {
		methods = append(methods,
			method{name: "LOAD DATA LOCAL INFILE per batch", stmtRows: *batch, autoInc: autoInc, writeStmt: loadRows},
			method{name: "LOAD DATA LOCAL INFILE, all rows", stmtRows: *rows, autoInc: autoInc, writeStmt: loadRows})
	}

	fmt.Printf("\n%d rows per method, %d rows per transaction\n\n", *rows, *batch)
	fmt.Printf("| method | rows per statement | id AUTO_INCREMENT | rows/s | seconds | probe INSERT p50 / p99 / max |\n|---|---|---|---|---|---|\n")
	for i, m := range methods {
		table := fmt.Sprintf("uc_bench_%d", i)
		_, err := db.Exec("CREATE TABLE `" + table + "` LIKE user_coupon")
		check(err)
		if m.autoInc {
			_, err := db.Exec("ALTER TABLE `" + table + "` MODIFY `id` bigint NOT NULL AUTO_INCREMENT")
			check(err)
		}
		txRows := *batch
		if m.stmtRows > txRows {
			txRows = m.stmtRows
		}
		p := startProbe(db, table, *probe)
		began := time.Now()
		for tx := range slices.Chunk(data, txRows) {
			check(inTx(db, func(t *sql.Tx) error {
				for stmt := range slices.Chunk(tx, m.stmtRows) {
					if err := m.writeStmt(t, table, stmt); err != nil {
						return err
					}
				}
				return nil
			}))
		}
		took := time.Since(began)
		lat := p.stop()
		var n int
		check(db.QueryRow("SELECT COUNT(*) FROM `" + table + "` WHERE id > 0").Scan(&n))
		if n != *rows {
			log.Fatalf("%s: %d rows in %s, want %d", m.name, n, table, *rows)
		}
		fmt.Printf("| %s | %d | %v | %.0f | %.2f | %s |\n", m.name, m.stmtRows, yesNo(m.autoInc), float64(*rows)/took.Seconds(), took.Seconds(), lat)
		_, err = db.Exec("DROP TABLE `" + table + "`")
		check(err)
	}
}

// insertRows writes rows with one multi-row INSERT (placeholders, interpolated by the driver).
func insertRows(tx *sql.Tx, table string, rows []coupon) error {
	var q strings.Builder
	q.WriteString("INSERT INTO `" + table + "` (`" + strings.Join(columns, "`, `") + "`) VALUES ")
	args := make([]any, 0, len(rows)*len(columns))
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(columns)), ", ") + ")"
	for i, c := range rows {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(one)
		args = append(args, c.id, c.at, c.at, c.user, 1, c.redemption, 1, "DISTRIBUTION", "UNUSED", c.at, c.validTo, nil)
	}
	_, err := tx.Exec(q.String(), args...)
	return err
}

// loadRows writes rows with one LOAD DATA LOCAL INFILE, streamed from a pipe as they are rendered.
func loadRows(tx *sql.Tx, table string, rows []coupon) error {
	pr, pw := io.Pipe()
	go func() {
		w := loaddata.NewWriter(pw)
		for _, c := range rows {
			if err := w.Row(c.id, c.at, c.at, c.user, int64(1), c.redemption, 1, "DISTRIBUTION", "UNUSED", c.at, c.validTo, loaddata.Null); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(w.Flush())
	}()
	n, err := loaddata.Exec(tx, table, columns, pr)
	pr.Close()
	if err == nil && n != int64(len(rows)) {
		err = fmt.Errorf("LOAD DATA loaded %d rows of %d", n, len(rows))
	}
	return err
}

func inTx(db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// probe inserts one row at a time (autocommit, negative ids: apart from the measured rows) into
// the table being written, as a claim's persister would, and records each INSERT's latency.
type probe struct {
	quit chan struct{}
	wg   sync.WaitGroup
	lat  []time.Duration
}

func startProbe(db *sql.DB, table string, pause time.Duration) *probe {
	p := &probe{quit: make(chan struct{})}
	if pause <= 0 {
		return p
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for i := int64(1); ; i++ {
			select {
			case <-p.quit:
				return
			case <-time.After(pause):
			}
			at := time.Now().UTC().Format("2006-01-02 15:04:05.000")
			t0 := time.Now()
			_, err := db.Exec("INSERT INTO `"+table+"` (`"+strings.Join(columns, "`, `")+"`) VALUES (?, ?, ?, ?, 2, ?, 1, 'CLAIM', 'UNUSED', ?, ?, NULL)",
				-i, at, at, 90_000_000+i, "probe-"+strconv.FormatInt(i, 10), at, at)
			check(err)
			p.lat = append(p.lat, time.Since(t0))
		}
	}()
	return p
}

// stop ends the probe and describes its latencies.
func (p *probe) stop() string {
	close(p.quit)
	p.wg.Wait()
	if len(p.lat) == 0 {
		return "–"
	}
	slices.Sort(p.lat)
	q := func(f float64) float64 {
		return float64(p.lat[min(len(p.lat)-1, int(float64(len(p.lat))*f))].Microseconds()) / 1000
	}
	return fmt.Sprintf("%.1f / %.1f / %.1f ms (%d)", q(0.5), q(0.99), float64(p.lat[len(p.lat)-1].Microseconds())/1000, len(p.lat))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
