package stats_test

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
	"time"

	"coupond/coupon/keys"
	"coupond/testutil"
	"coupond/testutil/stack"
)

// handlerReads is the session's Handler_read_* total (rows and index entries the server read).
func handlerReads(t *testing.T, conn *sql.Conn) int64 {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), `SHOW SESSION STATUS LIKE 'Handler_read%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var total int64
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		total += n
	}
	return total
}

// readMeter measures the Handler_read_* of what a function runs on a pool narrowed to one
// connection, whose session counters it reads before and after.
type readMeter struct {
	t        *testing.T
	db       *sql.DB
	baseline int64 // what reading the counters itself adds
}

// newReadMeter narrows db to one open connection.
func newReadMeter(t *testing.T, db *sql.DB) *readMeter {
	t.Helper()
	db.SetMaxOpenConns(1)
	m := &readMeter{t: t, db: db}
	a := m.counters()
	m.baseline = m.counters() - a
	return m
}

// counters reads the one connection's Handler_read_* total.
func (m *readMeter) counters() int64 {
	m.t.Helper()
	conn, err := m.db.Conn(context.Background())
	if err != nil {
		m.t.Fatal(err)
	}
	defer conn.Close()
	return handlerReads(m.t, conn)
}

// reads runs f, which may use the pool, and returns the rows and index entries the server read
// meanwhile.
func (m *readMeter) reads(f func()) int64 {
	m.t.Helper()
	before := m.counters()
	f()
	return m.counters() - before - m.baseline
}

// A stats query of a template with 100,000 coupons reads a handful of rows: its queries do not
// grow with the coupons. The same measurement sees a COUNT(*) of them read them all, so it would
// catch a query that scanned them.
func TestStatsQueryCostDoesNotGrowWithCoupons(t *testing.T) {
	st := stack.New(t, "stats", "cost", stack.Options{})
	tpl := st.Template(t, 200_000, 1, nil)
	_, err := st.SQL.Exec(`INSERT INTO user_coupon (id, user_id, template_id, redemption_id, receive_count, source, status,
		valid_start_time, valid_end_time, created_at, updated_at)
		SELECT 1000000 + seq, seq, ?, CONCAT('seed-', seq), 1, 'CLAIM', 'UNUSED',
		UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) + INTERVAL 1 DAY, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) FROM seq_1_to_100000`, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	testutil.LedgerFromRows(t, st.SQL)
	if n, err := st.Stats.Rebuild(st.Ctx, tpl.ID, nil, nil); err != nil || n != 1 {
		t.Fatalf("rebuild: %d %v", n, err)
	}
	m := newReadMeter(t, st.SQL)
	var issued int
	query := m.reads(func() {
		got, err := st.Stats.TemplateStats(st.Ctx, platform, tpl.ID, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		issued = got.IssuedCount()
	})
	if issued != 100_000 {
		t.Fatalf("issued %d, want 100000", issued)
	}
	scan := m.reads(func() {
		var n int
		if err := st.SQL.QueryRow("SELECT COUNT(*) FROM user_coupon WHERE template_id = ?", tpl.ID).Scan(&n); err != nil || n != 100_000 {
			t.Fatalf("count: %d %v", n, err)
		}
	})
	t.Logf("Handler_read_* of templateStats: %d; of counting the coupons: %d (100,000 coupons)", query, scan)
	if query > 100 {
		t.Errorf("templateStats read %d rows/index entries for a template of 100,000 coupons", query)
	}
	if scan < 100_000 {
		t.Errorf("counting the coupons read %d (< 100,000): the measurement does not see that work", scan)
	}
}

// The recount of one day of a template (Rebuild of that day, as the roll-up's seal runs it) reads
// that day's ledger buckets and payments of the template, not the coupons (seeded with SQL, the
// ledgers recomputed from them by the upgrade's backfill, which must give what the recount of the
// rows gave): 100,000 coupons of another template
// issued that day and 150,000 of the same template from the days before it (50,000 of them
// archived) cost it nothing. A plan that scanned the table, the template or a status of it would
// read them.
func TestRecountOfADayDoesNotGrowWithOtherCoupons(t *testing.T) {
	st := stack.New(t, "stats", "daycost", stack.Options{})
	tpl := st.Template(t, 200_000, 1, nil)
	l := time.Now().In(keys.StatsZone())
	start := time.Date(l.Year(), l.Month(), l.Day()-2, 0, 0, 0, 0, l.Location())
	end := start.AddDate(0, 0, 1)
	next := 1_000_000 // ids and users of the next seeded rows
	seed := func(table string, n int, templateID int64, source, status string, created, updated time.Time) {
		t.Helper()
		cols, vals := "", ""
		if table == "user_coupon_archive" {
			cols, vals = ", archived_at", ", UTC_TIMESTAMP(3)"
		}
		_, err := st.SQL.Exec(`INSERT INTO `+table+` (id, user_id, template_id, redemption_id, receive_count, source, status,
			valid_start_time, valid_end_time, created_at, updated_at`+cols+`)
			SELECT ? + seq, ? + seq, ?, CONCAT('seed-', ? + seq), 1, ?, ?, ?, ? + INTERVAL 1 DAY, ?, ?`+vals+`
			FROM seq_1_to_`+strconv.Itoa(n), next, next, templateID, next, source, status, created, created, created, updated)
		if err != nil {
			t.Fatal(err)
		}
		next += n
	}
	at := func(h time.Duration) time.Time { return start.Add(h * time.Hour).UTC() }
	// The day's coupons of the template: issued 90 by claims and 30 by distribution (20 of them
	// since archived, 50 changed on later days), and 5 issued before and expired that day.
	seed("user_coupon", 60, tpl.ID, "CLAIM", "UNUSED", at(1), at(1))
	seed("user_coupon", 10, tpl.ID, "CLAIM", "USED", at(2), at(3))
	seed("user_coupon", 30, tpl.ID, "DISTRIBUTION", "EXPIRED", at(4), at(26))
	seed("user_coupon_archive", 20, tpl.ID, "CLAIM", "EXPIRED", at(5), at(30))
	seed("user_coupon", 5, tpl.ID, "CLAIM", "EXPIRED", at(-48), at(6))
	// The others.
	seed("user_coupon", 100_000, tpl.ID+1, "CLAIM", "UNUSED", at(7), at(7))
	seed("user_coupon", 50_000, tpl.ID, "CLAIM", "UNUSED", at(-120), at(-120))
	seed("user_coupon", 50_000, tpl.ID, "CLAIM", "EXPIRED", at(-120), at(-1))
	seed("user_coupon_archive", 50_000, tpl.ID, "CLAIM", "USED", at(-120), at(-72))

	testutil.LedgerFromRows(t, st.SQL) // the counts an upgrade's backfill gives are the rows' own
	m := newReadMeter(t, st.SQL)
	reads := m.reads(func() {
		if n, err := st.Stats.Rebuild(st.Ctx, tpl.ID, &start, &end); err != nil || n != 1 {
			t.Fatalf("rebuild: %d %v", n, err)
		}
	})
	got, err := st.Stats.TemplateStats(st.Ctx, platform, tpl.ID, &start, &end)
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Daily[0].Counts; len(got.Daily) != 1 || c.IssuedClaim != 90 || c.IssuedDistribution != 30 || c.Expired != 5 {
		t.Fatalf("recount of %s: %+v, want 90 claimed, 30 distributed, 5 expired", start.Format(time.DateOnly), got.Daily)
	}
	t.Logf("Handler_read_* of the recount of a day of 125 coupons of the template: %d", reads)
	if reads > 1000 {
		t.Errorf("the recount of a day read %d rows/index entries: it grows with other templates' or days' coupons", reads)
	}
	if reads < 5 { // the day's buckets: claims at 1h and 2h, distribution at 4h, expiries at 6h, and its end
		t.Errorf("the recount read %d (< 5): the measurement does not see its work", reads)
	}
}
