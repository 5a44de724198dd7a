// Package migrations holds the versioned SQL migrations generated from ent/schema (by
// `go run ./migrations/gen <name>`) and applies them with golang-migrate.
package migrations

import (
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/golang-migrate/migrate/v4"
	_ "github.com/golang-migrate/migrate/v4/database/mysql" // registers mysql://
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

//go:embed *.sql
var files embed.FS

// Apply brings the database named in dsn (go-sql-driver format) up to the newest migration. It is
// safe to call from several processes at once: golang-migrate holds a MySQL advisory lock meanwhile.
func Apply(dsn string) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("migrations: parse DSN: %w", err)
	}
	cfg.MultiStatements = true // a migration file holds several statements
	src, err := iofs.New(files, ".")
	if err != nil {
		return fmt.Errorf("migrations: source: %w", err)
	}
	m, err := migrate.NewWithSourceInstance("iofs", src, "mysql://"+cfg.FormatDSN())
	if err != nil {
		return fmt.Errorf("migrations: open: %w", err)
	}
	defer m.Close()
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("migrations: up: %w", err)
	}
	return nil
}

// EnsureDatabase creates the database named in dsn when it does not exist (a fresh machine).
func EnsureDatabase(dsn string) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("migrations: parse DSN: %w", err)
	}
	name := cfg.DBName
	if name == "" || strings.Contains(name, "`") {
		return fmt.Errorf("migrations: the DSN must name a database")
	}
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec("CREATE DATABASE IF NOT EXISTS `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
	if err != nil {
		return fmt.Errorf("migrations: create database %s: %w", name, err)
	}
	return nil
}
