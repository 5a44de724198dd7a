package main

import (
	"strings"
	"testing"
)

// stats-rebuild wants exactly one positive template id.
func TestStatsRebuildArguments(t *testing.T) {
	for _, args := range [][]string{{"stats-rebuild"}, {"stats-rebuild", "x"}, {"stats-rebuild", "0"}, {"stats-rebuild", "1", "2"}} {
		if err := run(args); err == nil || !strings.Contains(err.Error(), "stats-rebuild") {
			t.Errorf("%v: %v", args, err)
		}
	}
}
