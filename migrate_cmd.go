package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"coupond/migrations"
)

// migrate applies the migrations to the configured database or, with --print-ddl --keyspace
// NAME, writes the DDL of that keyspace's tables to w (for vtctldclient ApplySchema) and touches no
// database. On Vitess (COUPON_MYSQL_VITESS=1) it only prints: the schema is deployed per keyspace.
func migrate(cfg config, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	printDDL := fs.Bool("print-ddl", false, "print the DDL of a keyspace's tables instead of migrating")
	keyspace := fs.String("keyspace", "", "with --print-ddl: "+migrations.KeyspaceUser+" or "+migrations.KeyspaceTemplate)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *printDDL {
		ddl, err := migrations.KeyspaceDDL(*keyspace)
		if err != nil {
			return err
		}
		_, err = fmt.Fprint(w, ddl)
		return err
	}
	if *keyspace != "" {
		return errors.New("migrate: --keyspace goes with --print-ddl")
	}
	if cfg.MySQLVitess {
		return errors.New("migrate: COUPON_MYSQL_VITESS=1: deploy each keyspace's DDL (coupond migrate --print-ddl --keyspace NAME) with vtctldclient ApplySchema; see sharding/README.md")
	}
	return migrations.Apply(cfg.MySQLDSN)
}
