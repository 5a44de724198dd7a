package distribution_test

import (
	"fmt"
	"testing"

	"coupond/coupon/distribution"
)

// FailureCounts counts a task's failure rows by code, largest first and ties by code, and
// matches the rows themselves; a task without failures has an empty list.
func TestFailureCountsByCode(t *testing.T) {
	s := newStack(t, "failure_counts", 2)
	tpl := s.Template(t, 2, 1, nil)
	// 1 and 2 take the stock; 1 again is a duplicate; abc and x are not ids; 3 finds no stock.
	task := run(t, s, create(t, s, tpl.ID, "mixed.csv", []byte("userId\n1\n2\n1\nabc\nx\n3\n")).ID)
	got, err := s.Distribution.FailureCounts(s.Ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []distribution.FailureCount{{Code: "INVALID_USER_ID", Count: 2}, {Code: "DUPLICATE_IN_FILE", Count: 1}, {Code: "OUT_OF_STOCK", Count: 1}}
	if fmt.Sprint(deref(got)) != fmt.Sprint(want) {
		t.Errorf("failure counts %v, want %v (rows %v)", deref(got), want, failures(t, s, task.ID))
	}
	if len(failures(t, s, task.ID)) != task.FailCount || task.FailCount != 4 {
		t.Errorf("failCount %d, rows %v", task.FailCount, failures(t, s, task.ID))
	}
	clean := run(t, s, create(t, s, s.Template(t, 10, 1, nil).ID, "clean.csv", csvOf(ids(100, 3)...)).ID)
	if got, err := s.Distribution.FailureCounts(s.Ctx, clean.ID); err != nil || got == nil || len(got) != 0 {
		t.Errorf("a task without failures: %v, %v; want an empty list", got, err)
	}
}

func deref(fs []*distribution.FailureCount) []distribution.FailureCount {
	out := make([]distribution.FailureCount, len(fs))
	for i, f := range fs {
		out[i] = *f
	}
	return out
}
