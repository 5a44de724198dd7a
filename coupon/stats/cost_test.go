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
	// Every statement now runs on one connection, whose session counters we read.
	st.SQL.SetMaxOpenConns(1)
	conn, err := st.SQL.Conn(st.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	baseline := func() int64 { a := handlerReads(t, conn); return handlerReads(t, conn) - a }()
	measure := func(f func()) int64 {
		before := handlerReads(t, conn)
		f()
		return handlerReads(t, conn) - before - baseline
	}
	var issued int
	query := measure(func() {
		conn.Close() // hand the one connection to the service, take it back after
		got, err := st.Stats.TemplateStats(st.Ctx, platform, tpl.ID, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		issued = got.IssuedCount()
		if conn, err = st.SQL.Conn(st.Ctx); err != nil {
			t.Fatal(err)
		}
	})
	if issued != 100_000 {
		t.Fatalf("issued %d, want 100000", issued)
	}
	rebuild := measure(func() {
		conn.Close()
		if _, err := st.Stats.Rebuild(st.Ctx, tpl.ID, nil, nil); err != nil {
			t.Fatal(err)
		}
		if conn, err = st.SQL.Conn(st.Ctx); err != nil {
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
	conn.Close()
}
