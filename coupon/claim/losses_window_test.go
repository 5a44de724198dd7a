package claim

import (
	"runtime"
	"testing"
	"time"

	"coupond/lua"
)

// TestLossWatchKeepsTheWindow: the watch keeps exactly the answers of the last lossWindow, oldest
// first, through many slides of the window, and at a steady rate remembering allocates nothing.
func TestLossWatchKeepsTheWindow(t *testing.T) {
	var w lossWatch
	start := time.Unix(1_700_000_000, 0)
	step := lossWindow / 1000 // 1,000 answers per window
	at := func(i int) time.Time { return start.Add(time.Duration(i) * step) }
	for i := range 5500 {
		w.remember(1, 1, int64(i), "", lua.RedeemResult{ReceiveCount: i}, at(i))
	}
	got := w.snapshot()
	// answer i is kept while at(5499) - at(i) <= lossWindow, that is i >= 4499
	if len(got) != 1001 || got[0].userID != 4499 || got[len(got)-1].userID != 5499 {
		t.Fatalf("kept %d answers, %d…%d; want 1001, 4499…5499", len(got), got[0].userID, got[len(got)-1].userID)
	}
	for i := 1; i < len(got); i++ {
		if got[i].userID != got[i-1].userID+1 {
			t.Fatalf("answer %d is user %d after %d", i, got[i].userID, got[i-1].userID)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 5500; i < 25500; i++ { // 20 windows
		w.remember(1, 1, int64(i), "", lua.RedeemResult{}, at(i))
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n > 2 { // a regrowing slice would allocate about once per window
		t.Errorf("remembering 20,000 answers at a steady rate allocated %d times; want none", n)
	}
}
