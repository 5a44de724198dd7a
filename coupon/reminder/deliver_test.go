package reminder_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon/reminder"
	"coupond/ent/couponreminder"
	"coupond/jobs"
	"coupond/testutil"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
)

// remindersTotal reads coupond_reminders_total{result} from the default registry.
func remindersTotal(t *testing.T, result string) float64 {
	t.Helper()
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "coupond_reminders_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no coupond_reminders_total{result=%q}", result)
	return 0
}

// A healthy receiver gets each reminder once, signed, from the bucket's task on a real asynq
// worker, in pages; a cancelled reminder and a terminated template's reminders are not sent.
func TestWebhookReceivesEachReminderOnce(t *testing.T) {
	rc := newReceiver(nil)
	s := newStack(t, "healthy", reminder.Config{Page: 7, UserShards: 4}, rc, true) // 4 user shards: a page's outcomes in several UPDATEs
	tpl := upcoming(t, s, time.Minute+8*time.Second)                               // reminders 1 minute before: due in 8 s
	gone := upcoming(t, s, time.Minute+8*time.Second)
	sentBefore, skippedBefore := remindersTotal(t, "sent"), remindersTotal(t, "skipped")
	const users = 40
	want := map[string]int64{} // delivery id → user
	for u := int64(1); u <= users; u++ {
		r, err := s.Reminders.Create(s.Ctx, u, tpl.ID, couponreminder.ChannelAPP, 1)
		if err != nil {
			t.Fatal(err)
		}
		want[reminder.DeliveryID(r.ID, 1)] = u
		if _, err := s.Reminders.Create(s.Ctx, u, gone.ID, couponreminder.ChannelEMAIL, 1); err != nil {
			t.Fatal(err)
		}
	}
	cancelled, err := s.Reminders.Create(s.Ctx, 999, tpl.ID, couponreminder.ChannelAPP, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reminders.Cancel(s.Ctx, 999, tpl.ID, couponreminder.ChannelAPP); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Templates.Terminate(s.Ctx, stackMerchant, gone.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "every reminder decided", func() bool {
		n, err := s.DB.CouponReminder.Query().Where(couponreminder.StatusEQ(couponreminder.StatusPENDING)).Count(s.Ctx)
		return err == nil && n == 0
	})
	time.Sleep(300 * time.Millisecond) // a duplicate would arrive now
	accepted, refused, bad := rc.snapshot()
	if len(bad) > 0 || len(refused) > 0 {
		t.Fatalf("bad requests %v, refused %v", bad, refused)
	}
	if len(accepted) != users {
		t.Fatalf("receiver got %d deliveries, want %d", len(accepted), users)
	}
	for id, ds := range accepted {
		u, ok := want[id]
		if !ok {
			t.Fatalf("unexpected delivery %s: %+v", id, ds)
		}
		d := ds[0]
		if len(ds) != 1 || d.UserID != strconv.FormatInt(u, 10) || d.TemplateID != strconv.FormatInt(tpl.ID, 10) ||
			d.TemplateName != tpl.Name || d.Channel != "APP" || !d.RemindAt.Equal(tpl.ValidStart.Add(-time.Minute)) {
			t.Fatalf("delivery %s received %d times: %+v", id, len(ds), ds)
		}
	}
	counts := map[couponreminder.Status]int{}
	rows, _ := s.DB.CouponReminder.Query().All(s.Ctx)
	for _, r := range rows {
		counts[r.Status]++
		if r.Status == couponreminder.StatusSENT && r.SentAt == nil {
			t.Fatalf("SENT without sentAt: %+v", r)
		}
	}
	if counts[couponreminder.StatusSENT] != users || counts[couponreminder.StatusSKIPPED] != users || counts[couponreminder.StatusCANCELED] != 1 {
		t.Fatalf("statuses %v", counts)
	}
	if r, _ := s.DB.CouponReminder.Get(s.Ctx, cancelled.ID); r.Status != couponreminder.StatusCANCELED {
		t.Fatalf("cancelled reminder is %s", r.Status)
	}
	if d := remindersTotal(t, "sent") - sentBefore; d != users {
		t.Errorf("sent metric moved by %v, want %d", d, users)
	}
	if d := remindersTotal(t, "skipped") - skippedBefore; d != users {
		t.Errorf("skipped metric moved by %v, want %d", d, users)
	}
}

// A receiver that fails for a while (503) and recovers gets every reminder, once accepted, and
// the retries carry the same delivery id; nothing already delivered is sent again.
func TestFailingReceiverThatRecoversGetsEveryReminder(t *testing.T) {
	var healthyFrom atomic.Int64 // unix ns; set once the reminders exist
	healthyFrom.Store(time.Now().Add(time.Hour).UnixNano())
	failing := func() bool { return time.Now().UnixNano() < healthyFrom.Load() }
	rc := newReceiver(func(n int) int {
		if failing() && n%3 != 0 { // every third succeeds while failing: partly failed pages
			return 503
		}
		return 200
	})
	s := newStack(t, "recovers", reminder.Config{Page: 5, RetryBase: 300 * time.Millisecond, RetryMax: time.Second, Retries: 20}, rc, true)
	tpl := upcoming(t, s, time.Minute+4*time.Second)
	const users = 25
	for u := int64(1); u <= users; u++ {
		if _, err := s.Reminders.Create(s.Ctx, u, tpl.ID, couponreminder.ChannelAPP, 1); err != nil {
			t.Fatal(err)
		}
	}
	healthyFrom.Store(tpl.ValidStart.Add(-time.Minute + 3*time.Second).UnixNano()) // fails for 3 s from remindAt
	waitFor(t, 60*time.Second, "every reminder SENT", func() bool {
		n, err := s.DB.CouponReminder.Query().Where(couponreminder.StatusEQ(couponreminder.StatusSENT)).Count(s.Ctx)
		return err == nil && n == users
	})
	time.Sleep(300 * time.Millisecond)
	accepted, refused, bad := rc.snapshot()
	if len(bad) > 0 {
		t.Fatalf("bad requests %v", bad)
	}
	if len(refused) == 0 {
		t.Fatal("the receiver never failed: the test tests nothing")
	}
	if len(accepted) != users {
		t.Fatalf("%d deliveries accepted, want %d", len(accepted), users)
	}
	for id, ds := range accepted {
		if len(ds) != 1 {
			t.Fatalf("delivery %s accepted %d times", id, len(ds))
		}
	}
	for id := range refused {
		if _, ok := accepted[id]; !ok {
			t.Fatalf("delivery %s was refused, and never retried with the same id", id)
		}
	}
	rows, _ := s.DB.CouponReminder.Query().All(s.Ctx)
	retried := 0
	for _, r := range rows {
		if r.Attempts > 0 {
			retried++
		}
		if r.FailureReason != nil {
			t.Fatalf("SENT with a failure reason: %+v", r)
		}
	}
	if retried != len(refused) {
		t.Fatalf("%d rows record failed attempts, %d deliveries were refused", retried, len(refused))
	}
}

// A receiver that never answers 2xx: each reminder is tried 1 + Retries times, then FAILED with
// the reason; the bucket's task is done then. A receiver slower than the timeout is a failure too.
func TestDeliveryFailsAfterTheRetries(t *testing.T) {
	rc := newReceiver(func(int) int { return 500 })
	s := newStack(t, "fails", reminder.Config{RetryBase: 50 * time.Millisecond, RetryMax: 100 * time.Millisecond, Retries: 2, UserShards: 4}, rc, false)
	tpl := upcoming(t, s, time.Minute+3*time.Second)
	for u := int64(1); u <= 3; u++ {
		if _, err := s.Reminders.Create(s.Ctx, u, tpl.ID, couponreminder.ChannelEMAIL, 1); err != nil {
			t.Fatal(err)
		}
	}
	failedBefore := remindersTotal(t, "failed")
	minute := reminder.BucketMinute(tpl.ValidStart.Add(-time.Minute))
	time.Sleep(time.Until(tpl.ValidStart.Add(-time.Minute)))
	runs := 0
	for {
		runs++
		out, err := s.Reminders.SendBucket(s.Ctx, tpl.ID, minute)
		var re *reminder.RetryError
		if err == nil {
			if out.Failed != 3 {
				t.Fatalf("last run %+v, want 3 failed", out)
			}
			break
		}
		if !errors.As(err, &re) || runs > 10 {
			t.Fatalf("run %d: %v", runs, err)
		}
		time.Sleep(re.RetryAfter())
	}
	if runs != 3 {
		t.Fatalf("%d runs, want 3 (one try and 2 retries)", runs)
	}
	_, refused, _ := rc.snapshot()
	for id, n := range refused {
		if n != 3 {
			t.Fatalf("delivery %s tried %d times, want 3", id, n)
		}
	}
	rows, _ := s.DB.CouponReminder.Query().All(s.Ctx)
	for _, r := range rows {
		if r.Status != couponreminder.StatusFAILED || r.FailureReason == nil || *r.FailureReason != "WEBHOOK_REFUSED: the reminder service answered HTTP 500" || r.Attempts != 3 {
			t.Fatalf("row %+v", r)
		}
	}
	if d := remindersTotal(t, "failed") - failedBefore; d != 3 {
		t.Errorf("failed metric moved by %v, want 3", d)
	}

	slow := newReceiver(nil)
	slow.delay = 300 * time.Millisecond
	srv := httptestServer(t, slow)
	err := reminder.NewWebhook(srv, secret, 100*time.Millisecond).Send(s.Ctx, reminder.Delivery{DeliveryID: "1-1"})
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("slow receiver: %v, want a timeout", err)
	}
}

// Many reminders of one (template, minute) make one task, with a deterministic id; another
// minute is another task.
func TestOneTaskPerBucket(t *testing.T) {
	s := newStack(t, "bucket", reminder.Config{}, nil, false)
	tpl := upcoming(t, s, 3*time.Hour)
	for u := int64(1); u <= 300; u++ {
		if _, err := s.Reminders.Create(s.Ctx, u, tpl.ID, couponreminder.ChannelAPP, 60); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Reminders.Create(s.Ctx, 1, tpl.ID, couponreminder.ChannelEMAIL, 90); err != nil {
		t.Fatal(err)
	}
	insp := asynq.NewInspector(testutil.QueueOpt())
	defer insp.Close()
	tasks, err := insp.ListScheduledTasks(jobs.QueueName(jobs.QueueDefault), asynq.PageSize(100))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]time.Time{}
	for _, ti := range tasks {
		if ti.Type == jobs.TypeRemindBucket {
			got[ti.ID] = ti.NextProcessAt
		}
	}
	at60, at90 := tpl.ValidStart.Add(-60*time.Minute), tpl.ValidStart.Add(-90*time.Minute)
	want := map[string]time.Time{
		fmt.Sprintf("remind:%d:%d", tpl.ID, reminder.BucketMinute(at60).Unix()): at60,
		fmt.Sprintf("remind:%d:%d", tpl.ID, reminder.BucketMinute(at90).Unix()): at90,
	}
	if len(got) != len(want) {
		t.Fatalf("tasks %v, want %v", got, want)
	}
	for id, at := range want {
		next, ok := got[id]
		if !ok || next.Before(at) || next.After(at.Add(time.Second)) {
			t.Fatalf("task %s at %v (present %v), want within a second after %v", id, next, ok, at)
		}
	}
}

// A bucket whose task was archived (or lost) is sent by the sweep, at most SweepLimit
// reminders per run; the sweep leaves reminders due less than SweepGrace ago to their task.
func TestSweepSendsWhatNoTaskSent(t *testing.T) {
	rc := newReceiver(nil)
	s := newStack(t, "sweep", reminder.Config{SweepLimit: 10, SweepGrace: time.Minute}, rc, false)
	tpl := upcoming(t, s, 2*time.Hour)
	for u := int64(1); u <= 25; u++ {
		if _, err := s.Reminders.Create(s.Ctx, u, tpl.ID, couponreminder.ChannelAPP, 60); err != nil {
			t.Fatal(err)
		}
	}
	insp := asynq.NewInspector(testutil.QueueOpt())
	defer insp.Close()
	id := fmt.Sprintf("remind:%d:%d", tpl.ID, reminder.BucketMinute(tpl.ValidStart.Add(-time.Hour)).Unix())
	if err := insp.ArchiveTask(jobs.QueueName(jobs.QueueDefault), id); err != nil { // as an operator could in asynqmon
		t.Fatal(err)
	}
	out, err := s.Reminders.Sweep(s.Ctx)
	if err != nil || out != (reminder.Outcome{}) {
		t.Fatalf("sweep before anything is due: %+v, %v", out, err)
	}
	// Make them overdue by 2 minutes, as if the task had been lost 2 minutes ago.
	past := time.Now().Add(-2 * time.Minute)
	if _, err := s.SQL.Exec("UPDATE coupon_reminder SET remind_at = ?, due_at = ?", past, past); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{10, 10, 5, 0} {
		out, err := s.Reminders.Sweep(s.Ctx)
		if err != nil || out.Sent != want {
			t.Fatalf("sweep %d: %+v, %v; want %d sent", i, out, err, want)
		}
	}
	accepted, _, bad := rc.snapshot()
	if len(accepted) != 25 || len(bad) > 0 {
		t.Fatalf("receiver got %d deliveries (bad %v), want 25", len(accepted), bad)
	}
}

// The bucket's task and sweeps running at once on one bucket deliver each reminder once: the
// bucket's lease lets one of them send at a time.
func TestConcurrentSendersDeliverOnce(t *testing.T) {
	rc := newReceiver(nil)
	s := newStack(t, "concurrent_send", reminder.Config{Page: 20, SweepGrace: time.Second}, rc, false)
	tpl := upcoming(t, s, 2*time.Hour)
	const users = 200
	for u := int64(1); u <= users; u++ {
		if _, err := s.Reminders.Create(s.Ctx, u, tpl.ID, couponreminder.ChannelAPP, 60); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	if _, err := s.SQL.Exec("UPDATE coupon_reminder SET remind_at = ?, due_at = ?", past, past); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				var err error
				if i%2 == 0 {
					_, err = s.Reminders.SendBucket(s.Ctx, tpl.ID, reminder.BucketMinute(past))
				} else {
					_, err = s.Reminders.Sweep(s.Ctx)
				}
				var re *reminder.RetryError
				if err != nil && !errors.As(err, &re) {
					t.Error(err)
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if _, err := s.Reminders.SendBucket(s.Ctx, tpl.ID, reminder.BucketMinute(past)); err != nil {
		t.Fatal(err)
	}
	accepted, _, bad := rc.snapshot()
	if len(accepted) != users || len(bad) > 0 {
		t.Fatalf("%d deliveries (bad %v), want %d", len(accepted), bad, users)
	}
	for id, ds := range accepted {
		if len(ds) != 1 {
			t.Fatalf("delivery %s received %d times", id, len(ds))
		}
	}
}
