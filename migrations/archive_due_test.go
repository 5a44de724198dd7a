package migrations_test

import (
	"errors"
	"testing"

	"github.com/golang-migrate/migrate/v4"
)

// archiveDueVersion is the migration that adds the archive's queue and drops user_coupon's
// (status, updated_at) index.
const archiveDueVersion = 20261204032932

// TestArchiveDueMigration: coupons EXPIRED or USED before the migration are in the queue after it
// (due from their updated_at), the others are not; the index is gone; the down migration restores
// it and drops the queue, and up again works.
func TestArchiveDueMigration(t *testing.T) {
	m, db, _, prev := migratedBefore(t, "migrations_archive_due", archiveDueVersion)
	for i, st := range []string{"EXPIRED", "USED", "UNUSED", "LOCKED", "EXPIRED"} {
		if _, err := db.Exec("INSERT INTO user_coupon (id, created_at, updated_at, user_id, template_id, redemption_id, code, receive_count, source, status, valid_start_time, valid_end_time) "+
			"VALUES (?, NOW(3), TIMESTAMP('2026-01-02 03:04:05.678'), ?, 7, ?, ?, 1, 'CLAIM', ?, NOW(3), NOW(3))", i+1, 100+i, i, i, st); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT id, user_id, DATE_FORMAT(ended_at, '%Y-%m-%d %H:%i:%s.%f') FROM archive_due ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id, user int64
		var at string
		if err := rows.Scan(&id, &user, &at); err != nil {
			t.Fatal(err)
		}
		if user != 99+id || at != "2026-01-02 03:04:05.678000" {
			t.Errorf("entry %d: user %d, ended_at %s", id, user, at)
		}
		got = append(got, at)
	}
	rows.Close()
	if len(got) != 3 {
		t.Fatalf("%d queue entries after the migration, want the 3 EXPIRED or USED coupons", len(got))
	}
	hasIndex := func() bool {
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'user_coupon' AND index_name = 'usercoupon_status_updated_at'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	if hasIndex() {
		t.Fatal("user_coupon still has its (status, updated_at) index")
	}
	if err := m.Migrate(prev); err != nil {
		t.Fatal(err)
	}
	if !hasIndex() {
		t.Fatal("the down migration did not restore user_coupon's (status, updated_at) index")
	}
	if _, err := db.Exec("SELECT 1 FROM archive_due"); err == nil {
		t.Fatal("the down migration left archive_due")
	}
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		t.Fatal(err)
	}
	if hasIndex() {
		t.Fatal("up again left the index")
	}
}
