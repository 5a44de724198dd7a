package jobs_test

import (
	"fmt"
	"testing"
	"time"

	"coupond/coupon/reminder"
	"coupond/coupon/template"
	"coupond/ent/couponreminder"
	"coupond/jobs"
	"coupond/services"
	"coupond/testutil"
	"coupond/testutil/stack"

	"github.com/hibiken/asynq"
)

func TestNewRemindBucketTaskIsDeterministic(t *testing.T) {
	minute := time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)
	at := minute.Add(17*time.Second + 250*time.Millisecond) // a remindAt within the minute
	task, opts := jobs.NewRemindBucketTask(42, at, at)
	if task.Type() != jobs.TypeRemindBucket {
		t.Fatalf("type %q", task.Type())
	}
	if want := fmt.Sprintf(`{"templateId":"42","minute":%d}`, minute.Unix()); string(task.Payload()) != want {
		t.Fatalf("payload %s, want %s", task.Payload(), want)
	}
	var id string
	var due time.Time
	for _, o := range opts {
		switch o.Type() {
		case asynq.TaskIDOpt:
			id = o.Value().(string)
		case asynq.ProcessAtOpt:
			due = o.Value().(time.Time)
		}
	}
	if want := fmt.Sprintf("remind:42:%d", minute.Unix()); id != want {
		t.Fatalf("task id %q, want %q", id, want)
	}
	if want := minute.Add(18 * time.Second); !due.Equal(want) { // the whole second at or after remindAt
		t.Fatalf("process at %v, want %v", due, want)
	}
}

// A bucket task whose deliveries wait for their backoff retries when they are due.
func TestRetryDelayFollowsTheReminderBackoff(t *testing.T) {
	task, _ := jobs.NewRemindBucketTask(42, time.Now(), time.Now())
	err := fmt.Errorf("reminder bucket: %w", &reminder.RetryError{After: 7 * time.Second, Reason: "deliveries to retry"})
	if d := jobs.RetryDelay(3, err, task); d != 7*time.Second {
		t.Fatalf("retry delay %v, want 7s", d)
	}
}

// An archived bucket task loses no reminder: the periodic sweep, on a real scheduler and worker,
// sends them once they are overdue.
func TestArchivedRemindBucketIsSentByTheSweep(t *testing.T) {
	s := stack.New(t, "jobs", "remind_archived", stack.Options{Worker: true,
		Config: services.Config{Reminder: reminder.Config{SweepGrace: time.Second}}})
	tpl := s.Template(t, 10, 1, func(in *template.CreateInput) {
		in.ValidStartTime = time.Now().Add(time.Minute + 5*time.Second)
		in.ValidEndTime = time.Now().Add(2 * time.Hour)
	})
	for u := int64(1); u <= 5; u++ {
		if _, err := s.Reminders.Create(s.Ctx, u, tpl.ID, couponreminder.ChannelAPP, 1); err != nil {
			t.Fatal(err)
		}
	}
	insp := asynq.NewInspector(testutil.QueueOpt())
	defer insp.Close()
	id := fmt.Sprintf("remind:%d:%d", tpl.ID, reminder.BucketMinute(tpl.ValidStart.Add(-time.Minute)).Unix())
	if err := insp.ArchiveTask(jobs.QueueName(jobs.QueueDefault), id); err != nil {
		t.Fatal(err)
	}
	sched := asynq.NewScheduler(testutil.QueueOpt(), &asynq.SchedulerOpts{LogLevel: asynq.FatalLevel})
	if err := jobs.RegisterPeriodic(sched, jobs.Periods{Reminder: time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := sched.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Shutdown)
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, err := s.DB.CouponReminder.Query().Where(couponreminder.StatusEQ(couponreminder.StatusSENT)).Count(s.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 5 reminders sent 20 s after their archived task was due", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if ti, err := insp.GetTaskInfo(jobs.QueueName(jobs.QueueDefault), id); err != nil || ti.State != asynq.TaskStateArchived {
		t.Fatalf("the bucket task is %+v (%v); want it still archived, the sweep having sent its reminders", ti, err)
	}
}
