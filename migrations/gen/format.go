package main

import (
	atlas "ariga.io/atlas/sql/migrate"
	"ariga.io/atlas/sql/sqltool"
)

var golangMigrateFormatter = sqltool.GolangMigrateFormatter

// sqltoolDir wraps dir so Atlas reads and writes golang-migrate's file layout.
func sqltoolDir(dir *atlas.LocalDir) (*sqltool.GolangMigrateDir, error) {
	return sqltool.NewGolangMigrateDir(dir.Path())
}
