package migrations_test

import (
	"context"
	"database/sql"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"coupond/ent/migrate"
	"coupond/migrations"
	"coupond/store"
	"coupond/testutil"

	"github.com/go-sql-driver/mysql"
)

// TestMigrationsMatchEntSchema migrates an empty database with the versioned files and asks ent
// what it would still change to reach ent/schema: nothing, or the files are stale (run
// `go run ./migrations/gen <name>`). Atlas's diff does not see a column's AUTO_INCREMENT
// attribute, so the columns that have it are compared with ent's too (such a change is written by
// hand).
func TestMigrationsMatchEntSchema(t *testing.T) {
	dsn := testutil.FreshDatabase(t, "migrations")
	for range 2 { // the second run finds nothing to do
		if err := migrations.Apply(dsn); err != nil {
			t.Fatal(err)
		}
	}
	client, sqlDB, err := store.OpenMySQL(dsn, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if got, want := autoIncrementColumns(t, sqlDB), entAutoIncrementColumns(); !slices.Equal(got, want) {
		t.Errorf("AUTO_INCREMENT columns after the migrations:\n%v\nent/schema's:\n%v", got, want)
	}
	var plan strings.Builder
	if err := client.Schema.WriteTo(context.Background(), &plan, migrate.WithDropColumn(true), migrate.WithDropIndex(true)); err != nil {
		t.Fatal(err)
	}
	var pending []string
	for _, line := range strings.Split(plan.String(), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && line != "BEGIN;" && line != "COMMIT;" {
			pending = append(pending, line)
		}
	}
	if len(pending) > 0 {
		t.Fatalf("the migrations leave the database short of ent/schema; run `go run ./migrations/gen <name>`:\n%s",
			strings.Join(pending, "\n"))
	}
}

// autoIncrementColumns are the "table.column" names of the AUTO_INCREMENT columns of db's database, sorted.
func autoIncrementColumns(t *testing.T, db *sql.DB) []string {
	t.Helper()
	return testutil.Strings(t, db, "SELECT CONCAT(table_name, '.', column_name) FROM information_schema.columns "+
		"WHERE table_schema = DATABASE() AND extra LIKE '%auto_increment%' ORDER BY 1")
}

// entAutoIncrementColumns are the "table.column" names of ent/schema's AUTO_INCREMENT columns, sorted.
func entAutoIncrementColumns() []string {
	var cols []string
	for _, tbl := range migrate.Tables {
		for _, c := range tbl.Columns {
			if c.Increment {
				cols = append(cols, tbl.Name+"."+c.Name)
			}
		}
	}
	slices.Sort(cols)
	return cols
}

func TestEnsureDatabaseCreatesAMissingDatabase(t *testing.T) {
	dsn := testutil.FreshDatabase(t, "ensure")
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("DROP DATABASE `" + cfg.DBName + "`"); err != nil {
		t.Fatal(err)
	}
	for range 2 { // creates it, then finds it there
		if err := migrations.EnsureDatabase(dsn); err != nil {
			t.Fatal(err)
		}
	}
	if err := migrations.Apply(dsn); err != nil {
		t.Fatal(err)
	}
	if err := migrations.EnsureDatabase("root@tcp(127.0.0.1:3306)/"); err == nil {
		t.Fatal("a DSN without a database must be refused")
	}
}

// Each keyspace's DDL creates exactly its tables, and every statement of the migrations is in one.
func TestKeyspaceDDL(t *testing.T) {
	for ks, tables := range migrations.Keyspaces {
		ddl, err := migrations.KeyspaceDDL(ks)
		if err != nil {
			t.Fatal(err)
		}
		created := regexp.MustCompile("(?m)^CREATE TABLE `([a-z_]+)`").FindAllStringSubmatch(ddl, -1)
		var got []string
		for _, m := range created {
			got = append(got, m[1])
		}
		sort.Strings(got)
		if !slices.Equal(got, tables) {
			t.Errorf("keyspace %s creates %v, want %v", ks, got, tables)
		}
	}
	if _, err := migrations.KeyspaceDDL("nope"); err == nil {
		t.Error("an unknown keyspace gave DDL")
	}
}

// The hot table keeps at most three secondary indexes after the migrations (issue 20's budget is
// four; stats read their ledgers, not a fourth): every claim and every distributed row writes each.
func TestUserCouponHasAtMostThreeSecondaryIndexes(t *testing.T) {
	dsn := testutil.FreshDatabase(t, "lean")
	if err := migrations.Apply(dsn); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	err = db.QueryRow(`SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics
WHERE table_schema = DATABASE() AND table_name = 'user_coupon' AND index_name <> 'PRIMARY'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || n > 3 {
		t.Fatalf("user_coupon has %d secondary indexes, want 1 to 3", n)
	}
}
