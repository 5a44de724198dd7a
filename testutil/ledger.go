package testutil

import (
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// LedgerFromRows recomputes db's stats ledgers (coupon/ledger) from the coupons in user_coupon and
// user_coupon_archive with the backfill statements of the migration that created them, as an
// upgrade did: for tests that seed coupons with SQL rather than through the paths that issue and
// expire them.
func LedgerFromRows(t testing.TB, db *sql.DB) {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	files, err := filepath.Glob(filepath.Join(filepath.Dir(self), "..", "migrations", "*_stats_ledger.up.sql"))
	if err != nil || len(files) != 1 {
		t.Fatalf("the stats ledger's migration: %v %v", files, err)
	}
	body, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	backfilled := 0
	for _, stmt := range strings.Split(string(body), ";\n") {
		var lines []string
		for _, l := range strings.Split(stmt, "\n") {
			if !strings.HasPrefix(l, "--") {
				lines = append(lines, l)
			}
		}
		stmt = strings.TrimSpace(strings.Join(lines, "\n"))
		for _, table := range []string{"issued_ledger", "expired_ledger"} {
			if !strings.HasPrefix(stmt, "INSERT INTO `"+table+"`") {
				continue
			}
			if _, err := db.Exec("DELETE FROM " + table); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(stmt); err != nil {
				t.Fatalf("backfill %s: %v", table, err)
			}
			backfilled++
		}
	}
	if backfilled != 2 {
		t.Fatalf("%s: %d backfill statements, want 2", files[0], backfilled)
	}
}
