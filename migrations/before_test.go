package migrations_test

import (
	"database/sql"
	"testing"

	"coupond/migrations"
	"coupond/testutil"

	"github.com/go-sql-driver/mysql"
	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// migratedBefore is a fresh database (named after name) migrated to the version before version: its
// migrator (closed when the test ends), a pool on it (ParseTime on; closed too), its DSN and that
// previous version.
func migratedBefore(t *testing.T, name string, version uint) (*migrate.Migrate, *sql.DB, string, uint) {
	t.Helper()
	dsn := testutil.FreshDatabase(t, name)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MultiStatements, cfg.ParseTime = true, true
	src, err := iofs.New(migrations.Files, ".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithSourceInstance("iofs", src, "mysql://"+cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	prev, err := src.Prev(version)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Migrate(prev); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return m, db, dsn, prev
}
