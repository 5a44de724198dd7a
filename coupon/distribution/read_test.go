package distribution_test

import (
	"fmt"
	"testing"
	"time"

	"coupond/coupon/distribution"
	"coupond/ent/coupontask"
)

// A run reads its file once: every row (header included) exactly once, whether the .xlsx
// declares its range (LibreOffice) or not (excelize writes "A1"), in several batches read ahead;
// no count comes before it, and the task ends with send_num, the data rows, set by the run.
func TestRunReadsTheFileOnce(t *testing.T) {
	s := newStack(t, "read_once", 4)
	for _, c := range []struct {
		name     string
		file     func(t *testing.T) []byte
		rows     int // in the file, header included
		dataRows int
	}{
		{"en-header-numbers.xlsx", func(t *testing.T) []byte { return fixture(t, "en-header-numbers.xlsx") }, 21, 20},
		{"excelize.xlsx", func(t *testing.T) []byte { return xlsxOf(t, ids(500, 30)...) }, 31, 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			tpl := s.Template(t, 1000, 1, nil)
			task := create(t, s, tpl.ID, "u.xlsx", c.file(t))
			if task.SendNum != nil {
				t.Fatalf("counted at upload: %d", *task.SendNum)
			}
			before := distribution.SheetRowsRead()
			done := run(t, s, task.ID)
			if read := distribution.SheetRowsRead() - before; read != c.rows {
				t.Fatalf("the run read %d rows of a %d-row file, want each once", read, c.rows)
			}
			if done.Status != coupontask.StatusSUCCESS || done.SendNum == nil || *done.SendNum != c.dataRows {
				t.Fatalf("%s, send_num %v; want SUCCESS with %d", done.Status, done.SendNum, c.dataRows)
			}
			accounted(t, s, done, c.dataRows, c.dataRows)
			books(t, s, tpl)
		})
	}
}

// A worker killed after batch 2's commit, with batch 3 reserved meanwhile (its T1 done, its
// writes not begun) and its reader ahead (batch 4 waiting, batch 5 read, and no further: the
// read-ahead is bounded), loses and doubles nothing: the rows read ahead were never written, the resumed
// run reads the file again from its start (skipping what was committed, remembering its ids so a
// repeat across the kill is still DUPLICATE_IN_FILE) and every row is accounted for once.
func TestKillWhileTheReaderIsAhead(t *testing.T) {
	const batch = 10
	s := newStack(t, "read_ahead_kill", batch)
	for _, step := range []string{"committed", "after-commit"} {
		t.Run(step, func(t *testing.T) {
			tpl := s.Template(t, 1000, 1, nil)
			// 60 rows: 55 distinct users, then 5 repeats of users of the first two batches.
			list := append(ids(2000, 55), 2000, 2005, 2011, 2015, 2019)
			task := create(t, s, tpl.ID, "u.xlsx", xlsxOf(t, list...))
			before := distribution.SheetRowsRead()
			batches := 0
			var ahead int
			s.Distribution.SetStep(func(name string) {
				if name != step {
					return
				}
				if batches++; batches < 2 {
					return
				}
				// Batch 2 is written: wait for the reader to hold batch 4 and have read batch 5
				// (header + 5 batches of rows) while batch 3 is reserved.
				for deadline := time.Now().Add(10 * time.Second); distribution.SheetRowsRead()-before < 1+5*batch; {
					if time.Now().After(deadline) {
						break
					}
					time.Sleep(time.Millisecond)
				}
				ahead = distribution.SheetRowsRead() - before
				panic("killed after " + name + " of batch 2")
			})
			func() {
				defer func() { _ = recover() }()
				_ = s.Distribution.Run(s.Ctx, task.ID)
				t.Fatal("the run was not interrupted")
			}()
			s.Distribution.SetStep(nil)
			if ahead != 1+5*batch {
				t.Fatalf("the reader had read %d rows when batch 2 was written, want %d: three batches ahead, no more", ahead, 1+5*batch)
			}
			if got := get(t, s, task.ID); got.ProcessedRows != 3*batch {
				t.Fatalf("after the kill: %d rows processed, want %d (batch 3 reserved, batches 4 and 5 read, not written)", got.ProcessedRows, 3*batch)
			}
			done := run(t, s, task.ID)
			accounted(t, s, done, 60, 55)
			f := failures(t, s, task.ID)
			if fmt.Sprint(f) != "[57:DUPLICATE_IN_FILE 58:DUPLICATE_IN_FILE 59:DUPLICATE_IN_FILE 60:DUPLICATE_IN_FILE 61:DUPLICATE_IN_FILE]" {
				t.Fatalf("failures %v, want the 5 repeats (rows 57-61) DUPLICATE_IN_FILE", f)
			}
			per := books(t, s, tpl)
			for u := int64(2000); u < 2055; u++ {
				if per[u] != 1 {
					t.Fatalf("user %d holds %d coupons, want 1", u, per[u])
				}
			}
		})
	}
}
