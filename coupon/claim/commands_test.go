package claim_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"coupond/services"
	"coupond/testutil/stack"

	"github.com/redis/go-redis/v9"
)

// claimCommandsBudget is the most Redis commands the services may send per claim: the claim
// script's one EVALSHA, plus the persister's per-batch stream reads, acknowledgement and
// after-commit work shared by the batch's claims (1.022 in all at 500 claims, bench/claim_commands.sh).
const claimCommandsBudget = 1.1

// commandCounter is a go-redis hook counting the commands a client sends, by name (a pipeline's
// commands one by one).
type commandCounter struct {
	mu     sync.Mutex
	byName map[string]int
}

func (c *commandCounter) add(cmds ...redis.Cmder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cmd := range cmds {
		c.byName[strings.ToLower(cmd.Name())]++
	}
}

func (c *commandCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byName = map[string]int{}
}

func (c *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.add(cmd); return next(ctx, cmd) }
}

func (c *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.add(cmds...); return next(ctx, cmds) }
}

// perClaim renders counts divided by n, largest first, and their sum.
func perClaim(counts map[string]int, n int) (string, float64) {
	names := make([]string, 0, len(counts))
	total := 0
	for name, k := range counts {
		names = append(names, name)
		total += k
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, " %s=%.3f", name, float64(counts[name])/float64(n))
	}
	return b.String(), float64(total) / float64(n)
}

// TestRedisCommandsPerClaim runs claims of distinct users through the claim path with the
// production settings (async mode, the persister's default batch) — Redeem, then Drain of the
// template's outbox — and counts the Redis commands the services send for them; it fails when
// they exceed claimCommandsBudget per claim. With COUPON_MEASURE_SERVER=1 on a Redis of its own
// (bench/claim_commands.sh) it also reads the server's INFO commandstats, which count the
// commands scripts call too. COUPON_MEASURE_CLAIMS sets the number of claims (default 500).
func TestRedisCommandsPerClaim(t *testing.T) {
	n := 500
	if v := os.Getenv("COUPON_MEASURE_CLAIMS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			t.Fatalf("COUPON_MEASURE_CLAIMS=%q: want a positive number", v)
		}
	}
	s := stack.New(t, "claim", "commands", stack.Options{Config: services.Config{}})
	counter := &commandCounter{}
	counter.reset()
	s.Redis.AddHook(counter)
	tpl := s.Template(t, n+1, 1, nil)
	// One claim persisted first warms the template cache and creates the outbox's group.
	if _, err := s.Redeemer.Redeem(s.Ctx, 1, tpl.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Persister.Drain(s.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	server := os.Getenv("COUPON_MEASURE_SERVER") == "1"
	if server {
		if err := s.Redis.ConfigResetStat(s.Ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	counter.reset()
	for u := int64(2); u < int64(n)+2; u++ {
		if _, err := s.Redeemer.Redeem(s.Ctx, u, tpl.ID, ""); err != nil {
			t.Fatalf("user %d: %v", u, err)
		}
	}
	persisted := 0
	for persisted < n {
		k, err := s.Persister.Drain(s.Ctx, tpl.ID)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			t.Fatalf("drain persisted %d of %d claims, then nothing", persisted, n)
		}
		persisted += k
	}
	counter.mu.Lock()
	sent, total := perClaim(counter.byName, n)
	counter.mu.Unlock()
	t.Logf("%d claims; commands the services sent per claim: %.3f:%s", n, total, sent)
	if server {
		stats := map[string]int{}
		info, err := s.Redis.Info(context.Background(), "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(info, "\n") {
			name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
			if !ok {
				continue
			}
			calls, _, _ := strings.Cut(rest, ",")
			k, _ := strconv.Atoi(calls)
			stats[strings.TrimPrefix(name, "cmdstat_")] = k
		}
		delete(stats, "config|resetstat")
		delete(stats, "info")
		all, total := perClaim(stats, n)
		t.Logf("commands the server executed per claim (the scripts' calls included): %.3f:%s", total, all)
	}
	if total > claimCommandsBudget {
		t.Fatalf("%.3f Redis commands per claim, budget %.3f", total, claimCommandsBudget)
	}
}
