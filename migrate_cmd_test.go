package main

import (
	"strings"
	"testing"

	"coupond/migrations"
)

func TestMigratePrintDDL(t *testing.T) {
	var b strings.Builder
	if err := migrate(config{MySQLVitess: true}, []string{"--print-ddl", "--keyspace", migrations.KeyspaceUser}, &b); err != nil {
		t.Fatal(err)
	}
	if ddl := b.String(); !strings.Contains(ddl, "CREATE TABLE `user_coupon` (") || strings.Contains(ddl, "`coupon_template`") {
		t.Fatalf("user keyspace DDL:\n%s", ddl)
	}
	if err := migrate(config{}, []string{"--print-ddl", "--keyspace", "nope"}, &b); err == nil {
		t.Fatal("an unknown keyspace printed")
	}
	if err := migrate(config{MySQLVitess: true}, nil, &b); err == nil || !strings.Contains(err.Error(), "ApplySchema") {
		t.Fatalf("migrate on Vitess: %v, want a refusal pointing at ApplySchema", err)
	}
}
