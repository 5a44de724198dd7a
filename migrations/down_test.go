package migrations_test

import (
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"coupond/migrations"
	"coupond/testutil"

	"github.com/go-sql-driver/mysql"
	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// open returns golang-migrate over the embedded files for the database of dsn.
func open(t *testing.T, dsn string) *migrate.Migrate {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MultiStatements = true
	src, err := iofs.New(migrations.Files, ".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithSourceInstance("iofs", src, "mysql://"+cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// autoIncrement is the AUTO_INCREMENT counter SHOW CREATE TABLE prints once rows were written.
var autoIncrement = regexp.MustCompile(` AUTO_INCREMENT=\d+`)

// shape is every table's SHOW CREATE TABLE, its lines sorted (golang-migrate's own table left out).
func shape(t *testing.T, dsn string) string {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SHOW TABLES")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if name != "schema_migrations" {
			tables = append(tables, name)
		}
	}
	var b strings.Builder
	for _, name := range tables {
		var n, ddl string
		if err := db.QueryRow("SHOW CREATE TABLE `"+name+"`").Scan(&n, &ddl); err != nil {
			t.Fatal(err)
		}
		// Columns and keys as a set: a key dropped and added again comes last, the same shape.
		lines := strings.Split(autoIncrement.ReplaceAllString(ddl, ""), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimSuffix(strings.TrimSpace(l), ",")
		}
		slices.Sort(lines)
		fmt.Fprintln(&b, strings.Join(lines, "\n"))
	}
	return b.String()
}

// Every migration's down file restores the shape the database had before its up file: for the
// newest migrations, the database migrated up to one and then down by one equals the database
// migrated up to the one before.
func TestMigrationsDownRestoreTheOldShape(t *testing.T) {
	after := testutil.FreshDatabase(t, "down_after")
	ma := open(t, after)
	if err := ma.Up(); err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 4; step++ { // the newest four: the ones a deployment may still roll back
		version, _, err := ma.Version()
		if err != nil {
			t.Fatal(err)
		}
		if err := ma.Steps(-1); err != nil {
			t.Fatalf("down from %d: %v", version, err)
		}
		prev, _, err := ma.Version()
		if errors.Is(err, migrate.ErrNilVersion) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		before := testutil.FreshDatabase(t, fmt.Sprintf("down_before%d", step))
		if err := open(t, before).Migrate(prev); err != nil {
			t.Fatal(err)
		}
		if got, want := shape(t, after), shape(t, before); got != want {
			t.Fatalf("down from %d leaves a shape other than %d's:\n--- down\n%s\n--- up to %d\n%s", version, prev, got, prev, want)
		}
	}
}
