package keys

import (
	"strings"
	"testing"
	"time"
)

// Every per-template key carries the template's hash tag once, after the namespace, so a script's
// keys share one Cluster slot; keys of different templates differ.
func TestPerTemplateKeysCarryTheTag(t *testing.T) {
	SetNamespace("ns:")
	defer SetNamespace("")
	const tpl, other = 42, 43
	build := map[string]func(int64) string{
		"Template":      Template,
		"TemplateNull":  TemplateNull,
		"TemplateLock":  TemplateLock,
		"ClaimCounter":  func(t int64) string { return ClaimCounter(t, 7) },
		"Outbox":        Outbox,
		"PersistLease":  PersistLease,
		"Request":       func(t int64) string { return Request(t, 7, "r-1") },
		"Redemption":    func(t int64) string { return Redemption(t, "42-99") },
		"UserRate":      func(t int64) string { return UserRate(t, 7) },
		"ExpiryBucket":  func(t int64) string { return ExpiryBucket(t, 1_700_000_000) },
		"DailyStats":    func(t int64) string { return DailyStats(t, "2026-12-01") },
		"Counted":       func(t int64) string { return Counted(t, "99:paid") },
		"ReminderLease": func(t int64) string { return ReminderLease(t, 1_700_000_000) },
		"StatsLive":     StatsLive,
	}
	seen := map[string]string{}
	for name, f := range build {
		k := f(tpl)
		if !strings.HasPrefix(k, "ns:{t42}:") || strings.Count(k, "{") != 1 || strings.Count(k, "}") != 1 {
			t.Errorf("%s = %q: want the namespace, then exactly one tag {t42}", name, k)
		}
		if f(other) == k {
			t.Errorf("%s: templates 42 and 43 share key %q", name, k)
		}
		if prev, dup := seen[k]; dup {
			t.Errorf("%s and %s are the same key %q", name, prev, k)
		}
		seen[k] = name
	}
	for name, k := range map[string]string{"Bloom": Bloom(), "OutboxIndex": OutboxIndex(), "CheckoutPending": CheckoutPending(),
		"StatsTouched": StatsTouched("2026-12-01"), "StatsSentinel": StatsSentinel()} {
		if !strings.HasPrefix(k, "ns:") || strings.Contains(k, "{") {
			t.Errorf("%s = %q: want the namespace and no hash tag", name, k)
		}
	}
}

func TestMemberFormatsRoundTrip(t *testing.T) {
	for _, c := range [][2]int64{{1, 1}, {42, 1 << 62}, {1<<63 - 1, 5}} {
		if a, b, ok := ParseBucketMember(BucketMember(c[0], c[1])); !ok || a != c[0] || b != c[1] {
			t.Errorf("bucket member %v: got %d %d %v", c, a, b, ok)
		}
	}
	for _, bad := range []string{"", "1", "1:", ":1", "a:1", "1:b", "0:1", "1:-2", "1_2"} {
		if _, _, ok := ParseBucketMember(bad); ok {
			t.Errorf("bucket member %q parsed", bad)
		}
	}
}

func TestPendingMemberRoundTrip(t *testing.T) {
	if u, o, c, ok := ParsePendingMember(PendingMember(7, 1<<62, 42, "n0nce")); !ok || u != 7 || o != 1<<62 || c != 42 {
		t.Fatalf("got %d %d %d %v", u, o, c, ok)
	}
	for _, bad := range []string{"", "1:2:3", "1:2:3:n:x", "0:2:3:n", "1:-2:3:n", "a:2:3:n"} {
		if _, _, _, ok := ParsePendingMember(bad); ok {
			t.Errorf("pending member %q parsed", bad)
		}
	}
}

// A stats day follows the configured zone: 16:30 UTC is already the next day in Shanghai.
func TestStatsDayFollowsTheZone(t *testing.T) {
	defer SetStatsZone(time.UTC)
	at := time.Date(2026, 12, 1, 16, 30, 0, 0, time.UTC)
	if d := StatsDay(at); d != "2026-12-01" {
		t.Errorf("UTC: %s", d)
	}
	SetStatsZone(time.FixedZone("UTC+8", 8*3600))
	if d := StatsDay(at); d != "2026-12-02" {
		t.Errorf("UTC+8: %s", d)
	}
}

// With one stock shard every key is the template's key of old, so N = 1 changes nothing in Redis.
func TestOneStockShardKeepsTheTemplateKeys(t *testing.T) {
	const tpl, user = 42, 7
	s := UserStock(tpl, user, 1)
	pairs := [][2]string{
		{s.Stock(), Template(tpl)}, {s.ClaimCounter(user), ClaimCounter(tpl, user)}, {s.Outbox(), Outbox(tpl)},
		{s.PersistLease(), PersistLease(tpl)}, {s.Request(user, "r"), Request(tpl, user, "r")},
		{s.Redemption("42-1"), Redemption(tpl, "42-1")}, {s.UserRate(user), UserRate(tpl, user)},
		{s.ClaimCounterPattern(), Namespace() + "{t42}:u:*"},
		{s.DistributionJournal(9), Namespace() + "{t42}:dist:9"}, {s.DistributionJournals(), Namespace() + "{t42}:dists"},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("one shard: %q, want the template's %q", p[0], p[1])
		}
	}
}

// The n shard tags of a template land in n distinct ranges of the slot space (so 3 shards on
// 3 masters splitting the slots evenly use all three), are deterministic, and a user's keys of one
// shard share that shard's slot.
func TestShardTagsSpreadOverTheSlotSpace(t *testing.T) {
	for _, n := range []int{2, 3, 8, 64} {
		for tpl := int64(1); tpl < 200; tpl++ {
			seen := map[int]bool{}
			for i := range n {
				tag := ShardTag(tpl, i, n)
				slot := Slot(tag)
				r := slot * n / SlotCount
				if r != i || seen[r] {
					t.Fatalf("template %d: shard %d of %d has slot %d (range %d)", tpl, i, n, slot, r)
				}
				seen[r] = true
				s := StockShard(tpl, i, n)
				for _, k := range []string{s.Stock(), s.ClaimCounter(5), s.Outbox(), s.Request(5, "x"), s.Redemption("r"),
					s.UserRate(5), s.Lends(), s.Receipt("l"), s.PersistLease()} {
					if Slot(k) != slot {
						t.Fatalf("key %q off the shard's slot %d", k, slot)
					}
				}
			}
			first := ShardTag(tpl, n-1, n)
			shardTags.Delete(shardTagsKey{tpl, n})
			if again := ShardTag(tpl, n-1, n); again != first {
				t.Fatalf("template %d: tag %q, then %q", tpl, first, again)
			}
		}
	}
	// three masters splitting the slots as redis-cli --cluster create does
	masters := func(slot int) int {
		switch {
		case slot <= 5460:
			return 0
		case slot <= 10922:
			return 1
		}
		return 2
	}
	for tpl := int64(1); tpl < 1000; tpl++ {
		got := map[int]bool{}
		for i := range 3 {
			got[masters(Slot(ShardTag(tpl, i, 3)))] = true
		}
		if len(got) != 3 {
			t.Fatalf("template %d: 3 shards on %d masters", tpl, len(got))
		}
	}
}

// Users spread evenly over the shards even when their ids are snowflakes (low bits mostly zero).
func TestUserShardSpreadsSnowflakeIDs(t *testing.T) {
	const n, users = 8, 80_000
	count := make([]int, n)
	for i := range users {
		id := int64(1_700_000_000_000+i*7)<<22 | int64(i%4)<<12 // time, node, sequence 0
		count[UserShard(id, n)]++
	}
	for s, c := range count {
		if c < users/n*9/10 || c > users/n*11/10 {
			t.Errorf("shard %d holds %d of %d users, want %d ± 10%%", s, c, users, users/n)
		}
	}
	if UserShard(12345, 1) != 0 {
		t.Error("one shard: a user is not on shard 0")
	}
}

// A shard's claim hash parses back to its template and user, like the template's own.
func TestParseShardClaimCounter(t *testing.T) {
	for _, k := range []string{ClaimCounter(42, 7), StockShard(42, 3, 8).ClaimCounter(7)} {
		if tpl, user, ok := ParseClaimCounter(k); !ok || tpl != 42 || user != 7 {
			t.Errorf("ParseClaimCounter(%q) = %d, %d, %v", k, tpl, user, ok)
		}
	}
}
