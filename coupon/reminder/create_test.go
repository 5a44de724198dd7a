package reminder_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/reminder"
	"coupond/ent/couponreminder"
	"coupond/idgen"
	"coupond/testutil/stack"
)

// 200 concurrent creates of one (user, template, channel) make one row, and every call answers it.
func TestConcurrentCreatesMakeOneReminder(t *testing.T) {
	s := newStack(t, "concurrent", reminder.Config{}, nil, false)
	tpl := upcoming(t, s, 2*time.Hour)
	const calls = 200
	var wg sync.WaitGroup
	ids := make([]int64, calls)
	errs := make([]error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.Reminders.Create(s.Ctx, 7, tpl.ID, couponreminder.ChannelAPP, 30)
			errs[i] = err
			if err == nil {
				ids[i] = r.ID
				if r.Status != couponreminder.StatusPENDING || r.MinutesBefore != 30 || !r.RemindAt.Equal(tpl.ValidStart.Add(-30*time.Minute)) {
					t.Errorf("call %d answered %+v", i, r)
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if distinct := slices.Compact(slices.Sorted(slices.Values(ids))); len(distinct) != 1 {
		t.Fatalf("calls answered %d different reminders", len(distinct))
	}
	rows, err := s.DB.CouponReminder.Query().All(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].ID != ids[0] || rows[0].Version != 1 || rows[0].Status != couponreminder.StatusPENDING {
		t.Fatalf("rows %+v, want one PENDING row %d at version 1", rows, ids[0])
	}
}

// Concurrent creates of one reminder with different minutesBefore still make one row, which ends
// at one of the asked times; every call answers without error.
func TestConcurrentCreatesWithDifferentTimesMakeOneReminder(t *testing.T) {
	s := newStack(t, "concurrent_mixed", reminder.Config{}, nil, false)
	tpl := upcoming(t, s, 2*time.Hour)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []error
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Reminders.Create(s.Ctx, 8, tpl.ID, couponreminder.ChannelEMAIL, 10+i%5); err != nil {
				mu.Lock()
				failures = append(failures, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d calls failed, first: %v", len(failures), failures[0])
	}
	rows, err := s.DB.CouponReminder.Query().All(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].MinutesBefore < 10 || rows[0].MinutesBefore > 14 ||
		!rows[0].RemindAt.Equal(tpl.ValidStart.Add(-time.Duration(rows[0].MinutesBefore)*time.Minute)) {
		t.Fatalf("rows %+v", rows)
	}
}

func TestCreateRefusals(t *testing.T) {
	s := newStack(t, "refusals", reminder.Config{}, nil, false)
	soon := upcoming(t, s, 5*time.Minute)
	open := s.Template(t, 10, 1, nil) // opened a minute ago
	ended := upcoming(t, s, time.Hour)
	if _, err := s.Templates.Terminate(s.Ctx, stack.Merchant, ended.ID); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		template int64
		minutes  int
		code     coupon.Code
		field    []string
	}{
		{"minutesBefore 0", soon.ID, 0, coupon.CodeInvalidInput, []string{"minutesBefore"}},
		{"minutesBefore 10081", soon.ID, 10081, coupon.CodeInvalidInput, []string{"minutesBefore"}},
		{"remindAt in the past", soon.ID, 10, coupon.CodeInvalidInput, []string{"minutesBefore"}},
		{"unknown template", idgen.Next(), 10, coupon.CodeNotFound, []string{"templateId"}},
		{"window opened", open.ID, 10, coupon.CodeInvalidState, nil},
		{"terminated", ended.ID, 10, coupon.CodeEnded, nil},
	} {
		r, err := s.Reminders.Create(s.Ctx, 7, c.template, couponreminder.ChannelAPP, c.minutes)
		errs := coupon.AsErrors(err)
		if r != nil || len(errs) != 1 || errs[0].Code != c.code || !slices.Equal(errs[0].Field, c.field) {
			t.Errorf("%s: got %+v, %v; want %s at %v", c.name, r, err, c.code, c.field)
		}
	}
	// The edges that are allowed: 1 and 10080 minutes, and the last minute before the opening.
	far := upcoming(t, s, 8*24*time.Hour)
	for _, m := range []int{1, 10080} {
		if _, err := s.Reminders.Create(s.Ctx, 7, far.ID, couponreminder.ChannelAPP, m); err != nil {
			t.Errorf("minutesBefore %d: %v", m, err)
		}
	}
	if _, err := s.Reminders.Create(s.Ctx, 7, soon.ID, couponreminder.ChannelAPP, 4); err != nil {
		t.Errorf("4 minutes before an opening in 5: %v", err)
	}
	if n, _ := s.DB.CouponReminder.Query().Count(s.Ctx); n != 2 { // far APP (set twice), soon APP
		t.Errorf("%d rows, want 2", n)
	}
}

// Cancel is idempotent; creating again after a cancel re-arms the same row as a new delivery.
func TestCancelAndCreateAgain(t *testing.T) {
	s := newStack(t, "cancel", reminder.Config{}, nil, false)
	tpl := upcoming(t, s, 2*time.Hour)
	if _, err := s.Reminders.Cancel(s.Ctx, 7, tpl.ID, couponreminder.ChannelAPP); len(coupon.AsErrors(err)) != 1 || coupon.AsErrors(err)[0].Code != coupon.CodeNotFound {
		t.Fatalf("cancel of no reminder: %v, want NOT_FOUND", err)
	}
	first, err := s.Reminders.Create(s.Ctx, 7, tpl.ID, couponreminder.ChannelAPP, 30)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		r, err := s.Reminders.Cancel(s.Ctx, 7, tpl.ID, couponreminder.ChannelAPP)
		if err != nil || r.ID != first.ID || r.Status != couponreminder.StatusCANCELED {
			t.Fatalf("cancel %d: %+v, %v", i, r, err)
		}
	}
	again, err := s.Reminders.Create(s.Ctx, 7, tpl.ID, couponreminder.ChannelAPP, 45)
	if err != nil {
		t.Fatal(err)
	}
	row, err := s.DB.CouponReminder.Get(s.Ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || again.Status != couponreminder.StatusPENDING || row.MinutesBefore != 45 || row.Version != 2 ||
		!row.DueAt.Equal(tpl.ValidStart.Add(-45*time.Minute)) {
		t.Fatalf("re-created %+v, row %+v: want the same row PENDING at 45 minutes, version 2", again, row)
	}
	// Another channel is another reminder; the same again changes nothing.
	if _, err := s.Reminders.Create(s.Ctx, 7, tpl.ID, couponreminder.ChannelEMAIL, 45); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reminders.Create(s.Ctx, 7, tpl.ID, couponreminder.ChannelAPP, 45); err != nil {
		t.Fatal(err)
	}
	if row, _ = s.DB.CouponReminder.Get(s.Ctx, first.ID); row.Version != 2 {
		t.Fatalf("an identical create bumped the version to %d", row.Version)
	}
	page, err := s.Reminders.Mine(s.Ctx, 7, coupon.Keyset{Size: 1})
	if err != nil || page.Total != 2 || len(page.Items) != 1 || !page.HasMore || page.Items[0].Channel != couponreminder.ChannelEMAIL {
		t.Fatalf("first page %+v, %v", page, err)
	}
	page, err = s.Reminders.Mine(s.Ctx, 7, coupon.Keyset{Size: 1, After: page.Items[0].ID})
	if err != nil || len(page.Items) != 1 || page.HasMore || page.Items[0].ID != first.ID {
		t.Fatalf("second page %+v, %v", page, err)
	}
	if other, _ := s.Reminders.Mine(s.Ctx, 8, coupon.Keyset{Size: 10}); other.Total != 0 {
		t.Fatalf("user 8 sees %d reminders", other.Total)
	}
}
