package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goFileName is a .go file named in prose: "run.go", "graph/http_upload.go".
var goFileName = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_]\.go\b`)

// TestCommentsNameFilesThatExist fails when a comment of a non-test, hand-written .go file names a
// .go file that exists neither next to it nor at that path from the module root.
func TestCommentsNameFilesThatExist(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "ent" || path == filepath.Join("graph", "generated") || strings.HasPrefix(d.Name(), ".") && path != "." {
				return filepath.SkipDir // generated, or not ours
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				for _, name := range goFileName.FindAllString(c.Text, -1) {
					name = strings.TrimLeft(name, "./")
					if exists(filepath.Join(filepath.Dir(path), name)) || exists(name) {
						continue
					}
					t.Errorf("%s: a comment names %s, which does not exist", fset.Position(c.Pos()), name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
