package distribution_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"coupond/coupon/distribution"
	"coupond/coupon/keys"
	"coupond/ent/coupontask"
	"coupond/testutil/stack"
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

// A worker killed after batch 2's commit, with batch 3 written meanwhile (its T2s done, or being
// done), batch 4 reserved (its T1 done), batch 5 deducted (journaled, not reserved) and its reader
// ahead (batch 6 waiting, batch 7 read, and no further: the read-ahead is bounded), loses and
// doubles nothing: the rows read ahead were never written, the resumed run reads the file again
// from its start (skipping what was committed, remembering its ids so a repeat across the kill is
// still DUPLICATE_IN_FILE) and every row is accounted for once.
func TestKillWhileTheReaderIsAhead(t *testing.T) {
	const batch = 10
	s := newStack(t, "read_ahead_kill", batch)
	for _, step := range []string{"committed", "after-commit"} {
		t.Run(step, func(t *testing.T) {
			tpl := s.Template(t, 1000, 1, nil)
			// 80 rows: 75 distinct users, then 5 repeats of users of the first two batches.
			list := append(ids(2000, 75), 2000, 2005, 2011, 2015, 2019)
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
				// Batch 2 is committed: wait for the reader to hold batch 6 and have read batch 7
				// (header + 7 batches of rows) while batch 4 is reserved and batch 5 deducted.
				for deadline := time.Now().Add(10 * time.Second); distribution.SheetRowsRead()-before < 1+7*batch; {
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
			if ahead != 1+7*batch {
				t.Fatalf("the reader had read %d rows when batch 2 was committed, want %d: five batches ahead, no more", ahead, 1+7*batch)
			}
			if got := get(t, s, task.ID); got.ProcessedRows != 4*batch {
				t.Fatalf("after the kill: %d rows processed, want %d (batch 4 reserved, batch 5 deducted, batches 6 and 7 read, not written)", got.ProcessedRows, 4*batch)
			}
			done := run(t, s, task.ID)
			accounted(t, s, done, 80, 75)
			f := failures(t, s, task.ID)
			if fmt.Sprint(f) != "[77:DUPLICATE_IN_FILE 78:DUPLICATE_IN_FILE 79:DUPLICATE_IN_FILE 80:DUPLICATE_IN_FILE 81:DUPLICATE_IN_FILE]" {
				t.Fatalf("failures %v, want the 5 repeats (rows 77-81) DUPLICATE_IN_FILE", f)
			}
			per := books(t, s, tpl)
			for u := int64(2000); u < 2075; u++ {
				if per[u] != 1 {
					t.Fatalf("user %d holds %d coupons, want 1", u, per[u])
				}
			}
		})
	}
}

// A worker killed as it begins batch 2's T1, batch 3 deducted meanwhile, leaves two batches
// journaled and not reserved (Redis took their stock and counters). Canceled before the next run,
// the task still has both committed by it (what Redis took is accounted for nowhere else), then
// stops at that boundary, CANCELED: 3 batches processed and issued, the books balanced, no journal
// left.
func TestKillWithTwoBatchesDeducted(t *testing.T) {
	const batch = 10
	s := newStack(t, "two_deducted", batch)
	tpl := s.Template(t, 1000, 1, nil)
	task := create(t, s, tpl.ID, "u.csv", csvOf(ids(3000, 60)...))
	journal := keys.StockShard(tpl.ID, 0, 1).DistributionJournal(task.ID)
	reserving := 0
	s.Distribution.SetStep(func(name string) {
		if name != "reserving" {
			return
		}
		if reserving++; reserving < 2 {
			return
		}
		// Batch 2's T1 is next: wait for batch 3's journal (the batch after row 21).
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if ok, _ := s.Redis.HExists(s.Ctx, journal, "21").Result(); ok {
				break
			}
		}
		panic("killed before batch 2's T1")
	})
	func() {
		defer func() { _ = recover() }()
		_ = s.Distribution.Run(s.Ctx, task.ID)
		t.Fatal("the run was not interrupted")
	}()
	s.Distribution.SetStep(nil)
	if got := get(t, s, task.ID); got.ProcessedRows != batch {
		t.Fatalf("after the kill: %d rows processed, want %d (batch 1 reserved)", got.ProcessedRows, batch)
	}
	if got, _ := s.Redis.HKeys(s.Ctx, journal).Result(); !slices.Contains(got, "11") || !slices.Contains(got, "21") {
		t.Fatalf("journals after the kill: %v, want batches after rows 11 and 21", got)
	}
	if _, err := s.Distribution.Cancel(s.Ctx, stack.Merchant, task.ID); err != nil {
		t.Fatal(err)
	}
	done := run(t, s, task.ID)
	if done.Status != coupontask.StatusCANCELED || done.ProcessedRows != 3*batch || done.SuccessCount != 3*batch || done.FailCount != 0 {
		t.Fatalf("after the run: %s, processed %d, success %d, fail %d; want CANCELED, 30, 30, 0", done.Status, done.ProcessedRows, done.SuccessCount, done.FailCount)
	}
	if n := len(books(t, s, tpl)); n != 3*batch {
		t.Fatalf("%d users hold coupons, want %d", n, 3*batch)
	}
	if n, _ := s.Redis.HLen(s.Ctx, journal).Result(); n != 0 {
		t.Fatalf("%d journals left", n)
	}
}
