// Command chaos is coupond's fault runner. It builds coupond once per run from the repository
// root; then, for each scenario, it starts its own MariaDB, Redis (AOF) and `coupond serve` on
// loopback with their data in a temp dir, creates a template over GraphQL, fires a bounded burst
// of redeemCoupon calls with unique requestIds, injects one fault (kill -9 of a process, a store
// stall or restart, client timeouts, cache evictions, an emulated Redis power loss, an archived
// persister task, writes paused on Redis Cluster masters to stop a borrow between stock shards),
// waits for the system to be quiet and checks the books against what the clients were told. It
// depends only on the binary, SQL and Redis (and asynq's inspector), never on
// coupond's packages, so it measures any build.
//
//	go run ./chaos [-scenario name[,name…]] [-short] [-all] [-keep] [-list]
//
// Prints one line per scenario on stdout (progress on stderr) and exits 1 when one of them fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	only := flag.String("scenario", "", "run only these scenarios (comma-separated names; implies -all for them)")
	short := flag.Bool("short", false, "smaller bursts")
	all := flag.Bool("all", false, "also run the scenarios known to fail on the current code")
	keep := flag.Bool("keep", false, "keep each scenario's directory (logs, data) and print where it is")
	list := flag.Bool("list", false, "list the scenarios and exit")
	flag.Parse()
	if *list {
		for _, s := range scenarios {
			fmt.Printf("%-28s %-5s known failing: %v\n", s.name, s.mode, s.knownFailing)
		}
		return
	}
	picked, err := pick(*only, *all)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	results, err := runAll(ctx, picked, *short, *keep, func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(2)
	}
	failed := false
	for _, r := range results {
		failed = failed || len(r.failures()) > 0
	}
	if failed {
		os.Exit(1)
	}
}

// pick selects the scenarios named in only (any of them), or every scenario that is not known to
// fail (all of them with all).
func pick(only string, all bool) ([]scenario, error) {
	if only == "" {
		var out []scenario
		for _, s := range scenarios {
			if all || !s.knownFailing {
				out = append(out, s)
			}
		}
		return out, nil
	}
	var out []scenario
	for _, name := range strings.Split(only, ",") {
		found := false
		for _, s := range scenarios {
			if s.name == strings.TrimSpace(name) {
				out, found = append(out, s), true
			}
		}
		if !found {
			return nil, fmt.Errorf("no scenario %q (go run ./chaos -list)", name)
		}
	}
	return out, nil
}

// runAll prepares the run, runs the scenarios one after the other, prints the table on stdout as
// it goes and removes everything it started, also when ctx is cancelled (Ctrl-C).
func runAll(ctx context.Context, picked []scenario, short, keep bool, logf func(string, ...any)) ([]result, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	maxUsers := usersFull
	if short {
		maxUsers = usersShort
	}
	logf("building coupond, initialising MariaDB, issuing %d tokens", maxUsers+2)
	r, err := newRun(root, maxUsers)
	if err != nil {
		return nil, err
	}
	r.keep = keep
	if !keep {
		defer r.close()
	}
	fmt.Println(header)
	var results []result
	for _, s := range picked {
		if ctx.Err() != nil {
			return results, ctx.Err()
		}
		logf("%s: starting", s.name)
		res := runScenario(ctx, r, s, short, logf)
		for _, ex := range res.examples {
			logf("%s: e.g. %s", s.name, ex)
		}
		logf("%s: done in %s", s.name, round(res.took))
		fmt.Println(res.line())
		results = append(results, res)
	}
	return results, nil
}
