package stats_test

import (
	"context"
	"database/sql"
	"testing"

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
// grow with the coupons. The same measurement sees the rebuild job (which counts them) read them
// all, so it would catch a query that scanned them.
func TestStatsQueryCostDoesNotGrowWithCoupons(t *testing.T) {
	st := stack.New(t, "stats", "cost", stack.Options{})
	tpl := st.Template(t, 200_000, 1, nil)
	_, err := st.SQL.Exec(`INSERT INTO user_coupon (id, user_id, template_id, redemption_id, code, receive_count, source, status,
		valid_start_time, valid_end_time, created_at, updated_at)
		SELECT 1000000 + seq, seq, ?, CONCAT('seed-', seq), CONCAT('code-', seq), 1, 'CLAIM', 'UNUSED',
		UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) + INTERVAL 1 DAY, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) FROM seq_1_to_100000`, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
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
	rebuild := m.reads(func() {
		if _, err := st.Stats.Rebuild(st.Ctx, tpl.ID, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("Handler_read_* of templateStats: %d; of the rebuild job: %d (100,000 coupons)", query, rebuild)
	if query > 100 {
		t.Errorf("templateStats read %d rows/index entries for a template of 100,000 coupons", query)
	}
	if rebuild < 100_000 {
		t.Errorf("the rebuild read %d (< 100,000): the measurement does not see its work", rebuild)
	}
}
