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
