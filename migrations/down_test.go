package migrations_test

import (
	"database/sql"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"coupond/testutil"

	"github.com/go-sql-driver/mysql"
	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// Every migration's down restores the schema its up started from, with coupons in the tables:
// the files are applied one at a time recording each version's schema, a few coupons are inserted
// at the newest, then the files are undone one at a time, each leaving the recorded schema of the
// version before it (columns and their order, indexes whatever their order). The coupons stay through the downs that keep
// their tables (a restored unique column gets a distinct value per row).
func TestEveryDownRestoresThePreviousSchema(t *testing.T) {
	dsn := testutil.FreshDatabase(t, "migrations_down")
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MultiStatements = true
	src, err := iofs.New(os.DirFS("."), ".") // the files migrations.Apply embeds
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithSourceInstance("iofs", src, "mysql://"+cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schemas := []string{schemaOf(t, db)} // schemas[i]: after i files
	for {
		if err := m.Steps(1); err != nil {
			break // no next file
		}
		schemas = append(schemas, schemaOf(t, db))
	}
	if len(schemas) < 2 {
		t.Fatal("no migration applied")
	}
	for i := range 3 {
		if _, err := db.Exec("INSERT INTO user_coupon (id, created_at, updated_at, user_id, template_id, redemption_id, receive_count, source, valid_start_time, valid_end_time) VALUES (?, NOW(), NOW(), ?, 1, ?, 1, 'CLAIM', NOW(), NOW())",
			i+1, i+1, fmt.Sprint("rd-", i)); err != nil {
			t.Fatalf("a coupon at the newest version: %v", err)
		}
	}
	for v := len(schemas) - 2; v >= 0; v-- {
		if err := m.Steps(-1); err != nil {
			t.Fatalf("down to version %d of %d: %v", v, len(schemas)-1, err)
		}
		if got := schemaOf(t, db); got != schemas[v] {
			t.Fatalf("down to version %d of %d left\n%s\nwant\n%s", v, len(schemas)-1, got, schemas[v])
		}
	}
}

var autoIncrement = regexp.MustCompile(` AUTO_INCREMENT=\d+`)

// schemaOf is SHOW CREATE TABLE of every table but golang-migrate's, by name, without the
// AUTO_INCREMENT counters and with the secondary keys sorted (a key dropped and added back is
// listed last).
func schemaOf(t *testing.T, db *sql.DB) string {
	t.Helper()
	names := testutil.Strings(t, db, "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name <> 'schema_migrations' ORDER BY table_name")
	out := ""
	for _, n := range names {
		var name, ddl string
		if err := db.QueryRow("SHOW CREATE TABLE `"+n+"`").Scan(&name, &ddl); err != nil {
			t.Fatal(err)
		}
		var keys, other []string
		for _, line := range strings.Split(autoIncrement.ReplaceAllString(ddl, ""), "\n") {
			if k := strings.TrimSuffix(strings.TrimSpace(line), ","); strings.HasPrefix(k, "KEY ") || strings.HasPrefix(k, "UNIQUE KEY ") {
				keys = append(keys, k)
			} else {
				other = append(other, line)
			}
		}
		slices.Sort(keys)
		out += strings.Join(other, "\n") + "\n" + strings.Join(keys, "\n") + "\n"
	}
	return out
}
