// The check that committed generated code (ent/, graph/generated, graph/model, the gqlgen resolver
// files, and whatever else a go:generate line writes) is exactly what `go generate ./...` produces
// from the hand-written sources.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestGeneratedCodeIsFresh copies the module (tracked files plus new, not ignored ones) into a
// temporary directory, runs `go generate ./...` there and compares the whole copy with the original,
// byte for byte: a file that generation changes (stale), deletes (missing) or adds (extra) fails the
// test. It does not care which generators run, only that their output is committed.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go generate ./... on a copy of the module; skipped with -short")
	}
	t.Parallel()

	goBin, err := exec.LookPath("go")
	if err != nil {
		if goroot := os.Getenv("GOROOT"); goroot != "" {
			goBin = filepath.Join(goroot, "bin", "go")
		} else {
			t.Fatalf("no go command in PATH: %v", err)
		}
	}

	root, err := os.Getwd() // the package directory of package main: the module root
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("%s is not the module root: %v", root, err)
	}

	files, ignored := genModuleFiles(t, root)
	if len(files) == 0 {
		t.Fatal("found no files to copy")
	}

	// Copy, remembering what was copied: the work tree may change while generation runs.
	copyDir := t.TempDir()
	want := make(map[string][]byte, len(files))
	for _, rel := range files {
		src := filepath.Join(root, filepath.FromSlash(rel))
		dst := filepath.Join(copyDir, filepath.FromSlash(rel))
		info, err := os.Lstat(src)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // deleted in the work tree, not yet in the index
			}
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, dst); err != nil {
				t.Fatal(err)
			}
		case info.Mode().IsRegular():
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
				t.Fatal(err)
			}
			want[rel] = data
		}
	}

	cmd := exec.CommandContext(t.Context(), goBin, "generate", "./...")
	cmd.Dir = copyDir
	cmd.Env = os.Environ() // GOFLAGS, GOMODCACHE, GOPROXY, GOCACHE, ... as the caller has them
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go generate ./... failed in a copy of the module (%s): %v\n%s", copyDir, err, out)
	}

	var stale, missing, extra []string
	seen := make(map[string]bool, len(want))
	err = filepath.WalkDir(copyDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Type()&fs.ModeSymlink != 0 || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(copyDir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		committed, ok := want[rel]
		switch {
		case !ok:
			extra = append(extra, rel)
		case !bytes.Equal(committed, got):
			seen[rel] = true
			stale = append(stale, rel+genFirstDifference(committed, got))
		default:
			seen[rel] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range want {
		if !seen[rel] {
			missing = append(missing, rel)
		}
	}
	extra = ignored(extra) // build output or caches that .gitignore keeps out of the repository

	if len(stale)+len(missing)+len(extra) == 0 {
		return
	}
	var msg strings.Builder
	msg.WriteString("generated code is stale: run go generate ./... and commit\n")
	for _, group := range []struct {
		name  string
		paths []string
	}{
		{"stale (go generate changes it)", stale},
		{"missing (go generate deletes it)", missing},
		{"extra (go generate creates it; not committed)", extra},
	} {
		sort.Strings(group.paths)
		for _, p := range group.paths {
			fmt.Fprintf(&msg, "  %s: %s\n", group.name, p)
		}
	}
	t.Error(msg.String())
}

// genFirstDifference describes where two versions of a file part: " (line N: committed "...", generated "...")".
func genFirstDifference(committed, generated []byte) string {
	a := strings.Split(string(committed), "\n")
	b := strings.Split(string(generated), "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y || i >= len(a) || i >= len(b) {
			return fmt.Sprintf(" (line %d: committed %q, generated %q)", i+1, genClip(x), genClip(y))
		}
	}
	return ""
}

func genClip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// genModuleFiles lists the files of the module in root, slash-separated and relative: with git, the
// tracked files plus the untracked ones that are not ignored (so a developer's new, not yet added
// file takes part; in a clean clone, as in CI, it is exactly the tracked files); without git, every
// file outside .git and outside what the root .gitignore names. It also returns a filter that keeps,
// of a list of paths, those that are not ignored.
func genModuleFiles(t *testing.T, root string) (files []string, notIgnored func([]string) []string) {
	t.Helper()
	if gitBin, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(gitBin, "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err == nil {
			seen := map[string]bool{}
			for _, f := range strings.Split(string(out), "\x00") {
				if f != "" && !seen[f] {
					seen[f] = true
					files = append(files, f)
				}
			}
			return files, func(paths []string) []string { return genGitNotIgnored(t, gitBin, root, paths) }
		}
		t.Logf("git ls-files failed (%v: %s); walking the tree instead", err, strings.TrimSpace(stderr.String()))
	}

	rules := genReadGitignore(root)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || rules.match(rel, true) {
				return filepath.SkipDir
			}
			return nil
		}
		if !rules.match(rel, false) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, func(paths []string) []string {
		var keep []string
		for _, p := range paths {
			if !rules.ignored(p) {
				keep = append(keep, p)
			}
		}
		return keep
	}
}

// genGitNotIgnored keeps the paths that git's ignore rules (of the original work tree) do not ignore.
func genGitNotIgnored(t *testing.T, gitBin, root string, paths []string) []string {
	t.Helper()
	if len(paths) == 0 {
		return nil
	}
	cmd := exec.Command(gitBin, "-C", root, "check-ignore", "--no-index", "-z", "--stdin")
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	if err != nil && !(errors.As(err, &exitErr) && exitErr.ExitCode() == 1) { // 1: none ignored
		t.Logf("git check-ignore: %v (treating no path as ignored)", err)
		return paths
	}
	ignored := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		ignored[p] = true
	}
	var keep []string
	for _, p := range paths {
		if !ignored[p] {
			keep = append(keep, p)
		}
	}
	return keep
}

// genIgnoreRules is a small subset of .gitignore (enough for this repository when git is missing):
// blank lines and comments skipped, negations not supported, a leading or inner "/" anchors the
// pattern at the root, a trailing "/" matches directories only, globs as in path.Match.
type genIgnoreRules []struct {
	pattern  string
	anchored bool
	dirOnly  bool
}

func genReadGitignore(root string) genIgnoreRules {
	data, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		return nil
	}
	var rules genIgnoreRules
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") {
			continue
		}
		dirOnly := strings.HasSuffix(line, "/")
		line = strings.TrimSuffix(line, "/")
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		rules = append(rules, struct {
			pattern  string
			anchored bool
			dirOnly  bool
		}{line, anchored, dirOnly})
	}
	return rules
}

// match tells whether the rules ignore rel itself (not looking at its parent directories).
func (g genIgnoreRules) match(rel string, isDir bool) bool {
	for _, r := range g {
		if r.dirOnly && !isDir {
			continue
		}
		name := path.Base(rel)
		if r.anchored {
			name = rel
		}
		if ok, _ := path.Match(r.pattern, name); ok {
			return true
		}
	}
	return false
}

// ignored tells whether the rules ignore the file rel or any directory above it.
func (g genIgnoreRules) ignored(rel string) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if g.match(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return g.match(rel, false)
}
