package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// capability is what every package below coupon/ may import besides its siblings.
var capability = []string{"coupon", "defaults", "ent/...", "lua", "idgen", "store"}

func with(base []string, more ...string) []string { return append(slices.Clip(base), more...) }

// importRules is the module's layering (coupon/doc.go says it in prose): each package, or "p/..."
// for p and every package below it, and the module-internal packages its non-test files may
// import (same notation). Test files may import anything: they build the whole stack.
var importRules = map[string][]string{
	// The shared layers.
	"ent/...":        {"ent/...", "idgen"}, // generated; ent/schema uses idgen for ids
	"idgen":          nil,
	"defaults":       nil, // the settings table's defaults, as constants
	"lua":            nil,
	"store":          {"ent/..."},
	"coupon":         {"ent/..."}, // vocabulary only: no subpackage, no I/O
	"auth":           {"coupon"},
	"migrations":     nil,
	"migrations/gen": {"ent/..."},
	"playground":     nil,
	"admin":          nil, // the embedded web admin build

	// coupon/: bottom layer.
	"coupon/keys":   nil,
	"coupon/code":   nil, // the codes' permutation: no I/O, no store
	"coupon/lease":  capability,
	"coupon/expiry": with(capability, "coupon/keys", "coupon/archivedue", "coupon/ledger"),
	// the archive's queue, written by the transitions that make a coupon due
	"coupon/archivedue": {"ent/..."},
	// the stats ledgers, written by the transactions that issue and expire coupons
	"coupon/ledger": {"ent"},
	// coupon/: middle layer.
	"coupon/issue":    with(capability, "coupon/expiry", "coupon/keys", "coupon/ledger"),
	"coupon/template": with(capability, "coupon/issue", "coupon/keys"),
	"coupon/checkout": with(capability, "coupon/keys", "coupon/archivedue", "coupon/ledger"),
	// coupon/: the top, which no coupon/ package imports.
	"coupon/claim":        with(capability, "coupon/template", "coupon/issue", "coupon/keys", "coupon/lease"),
	"coupon/distribution": with(capability, "coupon/template", "coupon/issue", "coupon/keys", "coupon/lease"),
	"coupon/reconcile":    with(capability, "coupon/template", "coupon/issue", "coupon/keys"),
	"coupon/stats":        with(capability, "coupon/checkout", "coupon/template", "coupon/keys", "coupon/ledger"),
	"coupon/wallet":       capability,
	"coupon/reminder":     with(capability, "coupon/keys", "coupon/lease"),
	"coupon/archive":      with(capability, "coupon/expiry", "coupon/keys", "coupon/lease", "coupon/archivedue"),

	// The transports and the wiring, which may call any capability.
	"jobs":            {"coupon/...", "defaults"},
	"graph/scalar":    nil,
	"graph/model":     {"coupon/...", "ent/..."},
	"graph/generated": {"coupon/...", "ent/...", "graph/model", "graph/scalar"},
	"graph":           {"auth", "coupon/...", "defaults", "ent/...", "graph/generated", "graph/model", "graph/scalar"},
	"services":        {"coupon/...", "ent/...", "jobs"},
	".":               {"admin", "auth", "coupon/...", "defaults", "ent/...", "graph", "graph/model", "idgen", "jobs", "migrations", "playground", "services", "store"},

	// Tools and test helpers.
	"testutil":                {"coupon/keys", "ent/...", "migrations", "store"},
	"testutil/stack":          {"coupon/...", "ent/...", "jobs", "services", "testutil"},
	"testutil/sqlcapture":     {},
	"bench/archive":           {"bench/internal/benchenv", "coupon/...", "ent/...", "jobs", "services", "store"},
	"bench/checkout":          {"auth", "bench/internal/benchenv", "coupon/...", "ent/...", "graph", "idgen", "jobs", "services", "store"},
	"bench/distribution":      {"auth", "bench/internal/loaddata", "coupon"},
	"bench/insertsize":        {"bench/internal/loaddata", "idgen", "migrations"},
	"bench/internal/benchenv": {"migrations"},
	"bench/internal/loaddata": {},
	"bench/loadgen":           {"auth", "coupon"},
	"bench/reconcile":         {"bench/internal/benchenv", "coupon/...", "ent/...", "jobs", "services", "store"},
	"bench/mariadb-settings":  {"migrations"},
	"chaos":                   nil, // drives the built binary only
}

// matches reports whether the module-relative package p is pattern ("q" or "q/...").
func matches(pattern, p string) bool {
	if q, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == q || strings.HasPrefix(p, q+"/")
	}
	return p == pattern
}

// TestImportRules reads every package's imports (go list) and fails on a module-internal import
// importRules does not allow, on a package the table does not name and on a rule naming no package.
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "coupond"
	rel := func(p string) (string, bool) {
		if p == module {
			return ".", true
		}
		return strings.CutPrefix(p, module+"/")
	}
	used := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var pkg struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&pkg); err != nil {
			t.Fatal(err)
		}
		p, _ := rel(pkg.ImportPath)
		var rule string
		for r := range importRules {
			if matches(r, p) && (rule == "" || len(r) > len(rule)) {
				rule = r // the most specific rule
			}
		}
		if rule == "" {
			t.Errorf("package %s has no rule in importRules: add it with the packages it may import", p)
			continue
		}
		used[rule] = true
		for _, imp := range pkg.Imports {
			q, internal := rel(imp)
			if !internal {
				continue
			}
			if !slices.ContainsFunc(importRules[rule], func(a string) bool { return matches(a, q) }) {
				t.Errorf("%s imports %s, which importRules does not allow (rule %q)", p, q, rule)
			}
		}
	}
	for r := range importRules {
		if !used[r] {
			t.Errorf("importRules names %s, which matches no package", r)
		}
	}
}
