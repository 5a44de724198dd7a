package distribution_test

import (
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"coupond/ent/coupontask"
	"coupond/jobs"
	"coupond/services"
	"coupond/testutil"
	"coupond/testutil/stack"
)

// A worker that died mid-task (here: its run stopped after the first batch's commit, when it had
// written the second batch and reserved the third meanwhile; lease released) leaves the task IN_PROGRESS; the reaper queues a run, a worker picks it up and
// the task ends SUCCESS exactly.
func TestReaperResumesAnAbandonedTask(t *testing.T) {
	s := newStack(t, "reaper", 10)
	tpl := s.Template(t, 1000, 1, nil)
	task := create(t, s, tpl.ID, "u.csv", csvOf(ids(1, 55)...))

	insp := asynq.NewInspector(testutil.QueueOpt())
	defer insp.Close()
	s.Distribution.SetStep(func(name string) {
		if name == "committed" {
			panic("worker died")
		}
	})
	func() {
		defer func() { _ = recover() }()
		_ = s.Distribution.Run(s.Ctx, task.ID)
	}()
	s.Distribution.SetStep(nil)
	if got := get(t, s, task.ID); got.Status != coupontask.StatusIN_PROGRESS || got.ProcessedRows != 30 {
		t.Fatalf("after the crash: %s, %d rows", got.Status, got.ProcessedRows)
	}
	if _, err := insp.DeleteAllPendingTasks(jobs.QueueName(jobs.QueueLow)); err != nil { // the queued run is lost too
		t.Fatal(err)
	}
	if n, err := s.Distribution.Reap(s.Ctx); err != nil || n != 1 {
		t.Fatalf("reap queued %d (%v), want 1", n, err)
	}
	s.StartWorker(t)
	deadline := time.Now().Add(20 * time.Second)
	for !get(t, s, task.ID).Done() {
		if time.Now().After(deadline) {
			t.Fatalf("task %+v not done 20 s after the reap", get(t, s, task.ID))
		}
		time.Sleep(20 * time.Millisecond)
	}
	done := get(t, s, task.ID)
	accounted(t, s, done, 55, 55)
	books(t, s, tpl)
	if done.SendNum == nil || *done.SendNum != 55 {
		t.Fatalf("send_num %v, want 55", done.SendNum)
	}
}

// The retention job deletes an ended task's upload once, keeps the task's results, and leaves the
// files of running tasks alone.
func TestRetentionDeletesEndedUploads(t *testing.T) {
	s := newStack(t, "retain", 100)
	tpl := s.Template(t, 10, 1, nil)
	ended := run(t, s, create(t, s, tpl.ID, "a.csv", csvOf(1, 2, 3)).ID)
	pending := create(t, s, tpl.ID, "b.csv", csvOf(4))
	if n, err := s.Distribution.Retain(s.Ctx, time.Hour); err != nil || n != 0 {
		t.Fatalf("retain with an hour's keep: %d %v, want 0", n, err)
	}
	if n, err := s.Distribution.Retain(s.Ctx, 0); err != nil || n != 1 {
		t.Fatalf("retain: %d %v, want 1", n, err)
	}
	if n, _ := s.Distribution.Retain(s.Ctx, 0); n != 0 {
		t.Fatalf("a second retain deleted %d", n)
	}
	if got := get(t, s, ended.ID); !got.FileDeleted || got.SuccessCount != 3 {
		t.Fatalf("ended task after retention: %+v", got.CouponTask)
	}
	if done := run(t, s, pending.ID); done.Status != coupontask.StatusSUCCESS {
		t.Fatalf("the running task's file went too: %s %v", done.Status, done.FailureReason)
	}
}

// A task that cannot run ends FAILED with the reason shown: its template ended before it
// started, or its uploaded file is gone. Nothing is issued and no stock moves.
func TestTaskThatCannotRunFails(t *testing.T) {
	files := stack.TempFiles(t)
	s := stack.New(t, "dist", "cannot_run", stack.Options{Config: services.Config{Files: files}})
	tpl := s.Template(t, 10, 1, nil)
	ended := create(t, s, tpl.ID, "a.csv", csvOf(1, 2))
	gone := create(t, s, tpl.ID, "b.csv", csvOf(3))
	if err := files.Delete(s.Ctx, gone.FilePath); err != nil {
		t.Fatal(err)
	}
	if got := run(t, s, gone.ID); got.Status != coupontask.StatusFAILED || got.FailureReason == nil || *got.FailureReason != "the uploaded file is gone" || got.CompletedAt == nil {
		t.Fatalf("file gone: %s %v", got.Status, got.FailureReason)
	}
	if _, err := s.Templates.Terminate(s.Ctx, stack.Merchant, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if got := run(t, s, ended.ID); got.Status != coupontask.StatusFAILED || got.FailureReason == nil || got.ProcessedRows != 0 {
		t.Fatalf("template ended: %s %v", got.Status, got.FailureReason)
	}
	books(t, s, tpl)
	if row, _ := s.DB.CouponTemplate.Get(s.Ctx, tpl.ID); row.Stock != 10 {
		t.Fatalf("stock %d, want 10", row.Stock)
	}
}
