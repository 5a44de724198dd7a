package distribution

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// idSet answers as a map does for ids dense and sparse, repeats included, and holds a million ids
// in under 24 MiB (16 MiB of table).
func TestIDSet(t *testing.T) {
	var s idSet
	want := map[int64]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300_000 {
		id := int64(10_000_001 + i) // a file of consecutive ids…
		switch i % 3 {
		case 1:
			id = r.Int64N(1<<62) + 1 // …random ones…
		case 2:
			id = int64(10_000_001 + r.IntN(i+1)) // …and repeats
		}
		if got := s.add(id); got != !want[id] {
			t.Fatalf("add(%d) = %v after %d ids, want %v", id, got, len(want), !want[id])
		}
		want[id] = true
	}
	if s.n != len(want) {
		t.Fatalf("%d ids held, want %d", s.n, len(want))
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var m idSet
	for i := range int64(1_000_000) {
		m.add(10_000_001 + i)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if live := int64(after.HeapAlloc) - int64(before.HeapAlloc); live > 24<<20 || m.n != 1_000_000 {
		t.Fatalf("a million ids: %d held in %d bytes, want under 24 MiB (a Go map takes 38 MB)", m.n, live)
	}
}
