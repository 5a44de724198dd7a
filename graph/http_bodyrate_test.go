package graph

import (
	"testing"
	"time"
)

// The rule of MinBodyRate with the production settings (COUPON_HTTP_MIN_BODY_RATE 131072 bytes/s,
// COUPON_HTTP_BODY_GRACE 5 s): every byte of a 64 MiB upload sent at 1 MB/s arrives before its
// deadline, with more than 50 s to spare by the end; a body dripping one byte every 2 s misses
// the deadline of its fourth byte, about 5 s after its first.
func TestBodyDeadline(t *testing.T) {
	const rate, grace = 131072, 5 * time.Second
	start := time.Unix(0, 0)
	arrives := func(n int64, perSecond float64) time.Time {
		return start.Add(time.Duration(float64(n) / perSecond * float64(time.Second)))
	}
	const size = 64 << 20
	for n := int64(0); n <= size; n += 32 << 10 {
		if at, by := arrives(n, 1e6), bodyDeadline(start, n, rate, grace); !at.Before(by) {
			t.Fatalf("at 1 MB/s, byte %d arrives at %v, after its deadline %v", n, at.Sub(start), by.Sub(start))
		}
	}
	if spare := bodyDeadline(start, size, rate, grace).Sub(arrives(size, 1e6)); spare < 50*time.Second {
		t.Fatalf("a 64 MiB upload at 1 MB/s ends %v before its deadline, want more than 50 s", spare)
	}
	for n := int64(1); ; n++ { // byte n (counting from 0) arrives at 2n s
		at, by := arrives(n, 0.5), bodyDeadline(start, n, rate, grace)
		if at.After(by) {
			if n != 3 || by.Sub(start) > grace+time.Millisecond {
				t.Fatalf("a drip of a byte every 2 s is cut at byte %d, %v after its first; want byte 3 at about %v", n, by.Sub(start), grace)
			}
			break
		}
	}
}
