package migrations_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"coupond/coupon/ledger"
	"coupond/store"
)

// statsLedgerVersion is the migration that creates the stats ledgers, backfills them and drops the
// (template_id, status, updated_at) index of user_coupon and its archive.
const statsLedgerVersion = 20261206112812

// TestStatsLedgerBackfill: for coupons written before the migration (two templates of two shops,
// live and archived, every status, created and expired around UTC midnights, quarter hours and the
// midnights of +5:30 and +5:45 zones), the ledgers the backfill writes give, for every day of UTC,
// Asia/Kolkata and Asia/Kathmandu, the counts the recount of the rows gave (coupons issued by source
// by created_at, EXPIRED ones by updated_at); the index is gone after it and back after its down.
func TestStatsLedgerBackfill(t *testing.T) {
	m, db, dsn, prev := migratedBefore(t, "migrations_stats_ledger", statsLedgerVersion)
	templates := map[int64]int64{7: 11, 8: 22} // template → shop
	for id, shop := range templates {
		if _, err := db.Exec(`INSERT INTO coupon_template (id, created_at, updated_at, shop_number, name, source, target, type,
			valid_start_time, valid_end_time, total_stock, stock, receive_rule, consume_rule, created_by)
			VALUES (?, NOW(3), NOW(3), ?, 't', 'SHOP', 'SHOP_WIDE', 'FIXED_OFF', NOW(3), NOW(3), 1000, 1000, '{}', '{}', 1)`, id, shop); err != nil {
			t.Fatal(err)
		}
	}
	// 600 coupons over three days from 2026-11-29 17:00 UTC, 7m13.457s apart (every quarter hour
	// and each zone's midnight falls between two of them), a few right at or a millisecond before
	// a midnight; every third EXPIRED a while later, every fifth archived.
	statuses := []string{"UNUSED", "EXPIRED", "USED", "EXPIRED", "LOCKED", "EXPIRED", "REVOKED"}
	base := time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)
	at := func(i int) time.Time {
		switch i {
		case 1:
			return time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
		case 2:
			return time.Date(2026, 11, 30, 18, 30, 0, 0, time.UTC).Add(-time.Millisecond) // Kolkata's midnight
		case 3:
			return time.Date(2026, 11, 30, 18, 15, 0, 0, time.UTC) // Kathmandu's
		}
		return base.Add(time.Duration(i) * (7*time.Minute + 13457*time.Millisecond))
	}
	for i := range 600 {
		created := at(i)
		status := statuses[i%len(statuses)]
		updated := created
		if status == "EXPIRED" {
			updated = created.Add(time.Duration(i%50) * 37 * time.Minute)
		}
		table, archived := "user_coupon", ""
		if i%5 == 0 {
			table, archived = "user_coupon_archive", ", archived_at"
		}
		source := "CLAIM"
		if i%4 == 0 {
			source = "DISTRIBUTION"
		}
		vals := "?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?"
		args := []any{i + 1, created, updated, 100 + i, int64(7 + i%2), fmt.Sprint("rd-", i), source, status, created, created.Add(time.Hour)}
		if archived != "" {
			vals += ", ?"
			args = append(args, updated)
		}
		if _, err := db.Exec("INSERT INTO "+table+" (id, created_at, updated_at, user_id, template_id, redemption_id, receive_count, source, status, valid_start_time, valid_end_time"+
			archived+") VALUES ("+vals+")", args...); err != nil {
			t.Fatal(err)
		}
	}
	// The recount of the rows, before the migration.
	recount := func(templateID int64, from, to time.Time) ledger.Counts {
		var c ledger.Counts
		err := db.QueryRow(`SELECT COALESCE(SUM(source = 'CLAIM' AND created_at >= ? AND created_at < ?), 0),
			COALESCE(SUM(source = 'DISTRIBUTION' AND created_at >= ? AND created_at < ?), 0),
			COALESCE(SUM(status = 'EXPIRED' AND updated_at >= ? AND updated_at < ?), 0)
			FROM (SELECT source, status, created_at, updated_at FROM user_coupon WHERE template_id = ?
			      UNION ALL SELECT source, status, created_at, updated_at FROM user_coupon_archive WHERE template_id = ?) c`,
			from, to, from, to, from, to, templateID, templateID).Scan(&c.IssuedClaim, &c.IssuedDistribution, &c.Expired)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	type span struct {
		tpl      int64
		from, to time.Time
	}
	want := map[span]ledger.Counts{}
	var spans []span
	for _, zone := range []string{"UTC", "Asia/Kolkata", "Asia/Kathmandu"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for d := time.Date(2026, 11, 29, 0, 0, 0, 0, loc); d.Before(time.Date(2026, 12, 4, 0, 0, 0, 0, loc)); d = d.AddDate(0, 0, 1) {
			for id := range templates {
				s := span{id, d, d.AddDate(0, 0, 1)}
				spans = append(spans, s)
				want[s] = recount(id, s.from, s.to)
			}
		}
	}
	if err := m.Migrate(statsLedgerVersion); err != nil {
		t.Fatal(err)
	}
	client, _, err := store.OpenMySQL(dsn, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	var total ledger.Counts
	for _, s := range spans {
		got, err := ledger.Count(context.Background(), client, templates[s.tpl], s.tpl, s.from, s.to)
		if err != nil {
			t.Fatal(err)
		}
		if got != want[s] {
			t.Errorf("template %d, day from %s: ledger %+v, recount of the rows %+v", s.tpl, s.from.Format(time.RFC3339), got, want[s])
		}
		if s.from.Location() == time.UTC {
			total.IssuedClaim += got.IssuedClaim
			total.IssuedDistribution += got.IssuedDistribution
			total.Expired += got.Expired
		}
	}
	if total.IssuedClaim+total.IssuedDistribution != 600 || total.Expired == 0 {
		t.Errorf("the UTC days hold %+v: want the 600 coupons and some expired", total)
	}
	indexes := func() int {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = DATABASE()
			AND index_name IN ('usercoupon_template_id_status_updated_at', 'usercouponarchive_template_id_status_updated_at')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := indexes(); n != 0 {
		t.Errorf("%d index columns of (template_id, status, updated_at) left after the migration", n)
	}
	if err := m.Migrate(prev); err != nil {
		t.Fatal(err)
	}
	if n := indexes(); n != 6 {
		t.Errorf("%d index columns of (template_id, status, updated_at) after the down migration, want 6", n)
	}
}
