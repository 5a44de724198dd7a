package migrations

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

// ddlTable is the table a migration statement changes.
var ddlTable = regexp.MustCompile("^(?:CREATE|ALTER|DROP) TABLE (?:IF (?:NOT )?EXISTS )?`([a-z0-9_]+)`")

// dataTable is the table a migration's data statement (a backfill of rows that exist) writes:
// nothing to do on a keyspace created empty, and not DDL ApplySchema takes.
var dataTable = regexp.MustCompile("^(?:INSERT (?:IGNORE )?INTO|UPDATE) `([a-z0-9_]+)`")

// KeyspaceDDL returns the statements of every up migration, oldest first, that change the tables of
// keyspace (Keyspaces), each ended by ";\n": applied in order to an empty keyspace (Vitess:
// vtctldclient ApplySchema) they give its tables the shape `coupond migrate` gives them on one
// MySQL, without the data backfills (a keyspace is created empty). It fails for an unknown
// keyspace and for a statement whose table is in no keyspace.
func KeyspaceDDL(keyspace string) (string, error) {
	if _, ok := Keyspaces[keyspace]; !ok {
		return "", fmt.Errorf("migrations: unknown keyspace %q (known: %s, %s)", keyspace, KeyspaceUser, KeyspaceTemplate)
	}
	names, err := fs.Glob(files, "*.up.sql")
	if err != nil {
		return "", err
	}
	sort.Strings(names) // golang-migrate's order: the version prefix
	var b strings.Builder
	for _, name := range names {
		body, err := fs.ReadFile(files, name)
		if err != nil {
			return "", err
		}
		for _, stmt := range strings.Split(string(body), ";\n") {
			var lines []string
			for _, l := range strings.Split(stmt, "\n") {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
					lines = append(lines, l)
				}
			}
			if len(lines) == 0 {
				continue
			}
			sql := strings.TrimSuffix(strings.Join(lines, "\n"), ";")
			if d := dataTable.FindStringSubmatch(sql); d != nil && KeyspaceOf(d[1]) != "" {
				continue
			}
			m := ddlTable.FindStringSubmatch(sql)
			if m == nil || KeyspaceOf(m[1]) == "" {
				return "", fmt.Errorf("migrations: %s: a statement on no keyspace's table: %.80s", name, sql)
			}
			if KeyspaceOf(m[1]) == keyspace {
				b.WriteString(sql + ";\n")
			}
		}
	}
	return b.String(), nil
}
