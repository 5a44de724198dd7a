// Command gen writes the next versioned migration into migrations/: the SQL that takes a database
// migrated with the existing files to the current ent schema. It replays the existing files into a
// scratch database (dropped and re-created first), so it needs a MySQL/MariaDB server but no Atlas CLI.
//
//	go run ./migrations/gen <name>      # e.g. go run ./migrations/gen add_reminder_index
//
// COUPON_MIGRATE_DEV_URL overrides the scratch database (default mysql://root@127.0.0.1:3306/coupond_migrate_dev).
package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"strings"

	"coupond/ent/migrate"

	atlas "ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/schema"
	_ "github.com/go-sql-driver/mysql"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: go run ./migrations/gen <migration_name>")
	}
	url := os.Getenv("COUPON_MIGRATE_DEV_URL")
	if url == "" {
		url = "mysql://root@127.0.0.1:3306/coupond_migrate_dev"
	}
	if err := resetScratch(url); err != nil {
		log.Fatalf("scratch database: %v", err)
	}
	dir, err := atlas.NewLocalDir("migrations")
	if err != nil {
		log.Fatalf("migrations dir (run from the module root): %v", err)
	}
	// golang-migrate layout (<version>_<name>.up.sql / .down.sql), applied by migrations.Apply.
	gmDir, err := sqltoolDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	opts := []schema.MigrateOption{
		schema.WithDir(gmDir),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dialect.MySQL),
		schema.WithFormatter(golangMigrateFormatter),
		schema.WithDropIndex(true),
		schema.WithDropColumn(true),
	}
	if err := migrate.NamedDiff(context.Background(), url, os.Args[1], opts...); err != nil {
		log.Fatalf("diff: %v", err)
	}
	fmt.Println("migrations written; review them, then commit")
}

// resetScratch drops and re-creates the scratch database named in the URL.
func resetScratch(url string) error {
	rest := strings.TrimPrefix(url, "mysql://")
	hostAndDB := rest[strings.Index(rest, "@")+1:]
	slash := strings.Index(hostAndDB, "/")
	user := rest[:strings.Index(rest, "@")]
	host, name := hostAndDB[:slash], hostAndDB[slash+1:]
	db, err := sql.Open("mysql", fmt.Sprintf("%s@tcp(%s)/", user, host))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("DROP DATABASE IF EXISTS `" + name + "`"); err != nil {
		return err
	}
	_, err = db.Exec("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
	return err
}
