package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// TestChaosShort runs the short bursts of every scenario that passes on the current code (the
// known-failing ones are listed in scenarios and run with `go run ./chaos -all`; the fullOnly ones
// with `go run ./chaos`) and fails on any
// lost claim, leaked stock or limit, oversold unit, user over the limit, inconsistent retry or
// template that does not become quiet. It needs mariadb-install-db, mariadbd, redis-server and
// redis-cli on the PATH (scripts/services.sh installs them); -short skips it.
func TestChaosShort(t *testing.T) {
	if testing.Short() {
		t.Skip("fault runner: skipped with -short")
	}
	for _, bin := range []string{"mariadb-install-db", "mariadbd", "redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s not found: the fault runner starts its own instances (scripts/services.sh installs them)", bin)
		}
	}
	all, err := pick("", false)
	if err != nil {
		t.Fatal(err)
	}
	var picked []scenario
	for _, s := range all {
		if !s.fullOnly {
			picked = append(picked, s)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	results, err := runAll(ctx, picked, true, false, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(picked) {
		t.Fatalf("%d results for %d scenarios", len(results), len(picked))
	}
	for _, r := range results {
		if f := r.failures(); len(f) > 0 {
			t.Errorf("%s: %s\n%s", r.name, strings.Join(f, ", "), r.line())
		}
	}
}
