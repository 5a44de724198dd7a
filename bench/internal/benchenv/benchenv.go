// Package benchenv is what the benchmark commands share of their set-up: a database of their own,
// the environment's defaults, and the load average they report beside their figures.
package benchenv

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	"coupond/migrations"

	"github.com/go-sql-driver/mysql"
)

// Env returns the environment variable k, or def when it is unset or empty.
func Env(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// FreshDatabase drops database name on the MySQL server of server (a DSN without a database),
// creates it afresh (utf8mb4, binary collation, as coupond's own), applies the migrations, and
// returns its DSN.
func FreshDatabase(server, name string) (string, error) {
	cfg, err := mysql.ParseDSN(server)
	if err != nil {
		return "", err
	}
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return "", err
	}
	defer admin.Close()
	for _, q := range []string{"DROP DATABASE IF EXISTS `" + name + "`", "CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"} {
		if _, err := admin.Exec(q); err != nil {
			return "", fmt.Errorf("%s: %w", q, err)
		}
	}
	cfg.DBName = name
	dsn := cfg.FormatDSN()
	if err := migrations.Apply(dsn); err != nil {
		return "", err
	}
	return dsn, nil
}

// LoadAvg returns the machine's 1, 5 and 15 minute load averages ("?" when unknown).
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
