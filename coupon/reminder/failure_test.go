package reminder_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/reminder"
	"coupond/ent/couponreminder"
	"coupond/services"
	"coupond/testutil/stack"
)

// A webhook receiver that cannot be reached: the user's reminder (what myReminders reads) says
// WEBHOOK_UNREACHABLE in public words, naming neither the internal host nor its port; the log
// gets the network error with both.
func TestFailureReasonHidesTheNetworkDetail(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String() // a port nothing listens on once closed: connection refused
	l.Close()
	_, port, _ := net.SplitHostPort(addr)

	var logged syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	sc := services.Config{Reminder: reminder.Config{RetryBase: time.Hour, RetryMax: time.Hour, Retries: 3},
		ReminderSender: reminder.NewWebhook("http://"+addr+"/hooks/reminders", secret, time.Second)}
	s := stack.New(t, "reminder", "hidden", stack.Options{Config: sc})
	tpl := upcoming(t, s, time.Minute+2*time.Second)
	if _, err := s.Reminders.Create(s.Ctx, 7, tpl.ID, couponreminder.ChannelAPP, 1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(tpl.ValidStart.Add(-time.Minute)))
	out, err := s.Reminders.SendBucket(s.Ctx, tpl.ID, reminder.BucketMinute(tpl.ValidStart.Add(-time.Minute)))
	var re *reminder.RetryError
	if !errors.As(err, &re) || out.Retrying != 1 {
		t.Fatalf("SendBucket = %+v, %v; want one delivery to retry", out, err)
	}
	page, err := s.Reminders.Mine(s.Ctx, 7, coupon.Keyset{Size: 10})
	if err != nil || len(page.Items) != 1 || page.Items[0].FailureReason == nil {
		t.Fatalf("Mine = %+v, %v", page, err)
	}
	reason := *page.Items[0].FailureReason
	if reason != "WEBHOOK_UNREACHABLE: the reminder service could not be reached" {
		t.Errorf("failureReason %q", reason)
	}
	for _, leak := range []string{"127.0.0.1", port, "refused", "dial"} {
		if strings.Contains(reason, leak) {
			t.Errorf("failureReason %q shows %q", reason, leak)
		}
	}
	if log := logged.String(); !strings.Contains(log, addr) || !strings.Contains(log, "refused") {
		t.Errorf("the log lacks the network detail (%s refused):\n%s", addr, log)
	}
}

// VerifyWebhook takes what Webhook sends and refuses a bad signature and a timestamp more than
// five minutes away.
func TestVerifyWebhook(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"deliveryId":"1-1"}`)
	ts := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	for _, c := range []struct {
		name    string
		at      time.Duration
		sig     string
		wantErr string
	}{
		{"fresh", -time.Minute, "", ""},
		{"4m59s old", -(5*time.Minute - time.Second), "", ""},
		{"5m01s old", -(5*time.Minute + time.Second), "", "away from now"},
		{"from the future", 6 * time.Minute, "", "away from now"},
		{"bad signature", 0, "sha256=00", "signature"},
	} {
		stamp := ts(c.at)
		sig := c.sig
		if sig == "" {
			sig = reminder.Sign([]byte(secret), stamp, body)
		}
		err := reminder.VerifyWebhook([]byte(secret), stamp, sig, body, now)
		if (c.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.wantErr)
		}
	}
	if err := reminder.VerifyWebhook([]byte(secret), "yesterday", "x", body, now); err == nil {
		t.Error("a timestamp that is not a number passed")
	}
}

// syncBuffer is a bytes.Buffer safe for the log's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
