package main

import (
	"strings"
	"testing"

	"coupond/coupon/reminder"
)

func TestReminderWebhookConfig(t *testing.T) {
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reminderSender(cfg).(reminder.LogSender); !ok {
		t.Fatalf("without a URL the sender is %T, want the log line alone", reminderSender(cfg))
	}
	t.Setenv("COUPON_REMINDER_WEBHOOK_URL", "https://hooks.example.com/reminders")
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "COUPON_REMINDER_WEBHOOK_SECRET") {
		t.Fatalf("URL without a secret: %v", err)
	}
	t.Setenv("COUPON_REMINDER_WEBHOOK_SECRET", "s3cret")
	t.Setenv("COUPON_REMINDER_RETRIES", "3")
	if cfg, err = loadConfig(); err != nil || cfg.ReminderRetries != 3 {
		t.Fatalf("config %+v, %v", cfg, err)
	}
	if ss, ok := reminderSender(cfg).(reminder.Senders); !ok || len(ss) != 2 {
		t.Fatalf("with a URL the sender is %#v, want the webhook then the log line", reminderSender(cfg))
	}
	t.Setenv("COUPON_REMINDER_RETRIES", "0")
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "COUPON_REMINDER_RETRIES") {
		t.Fatalf("no retries: %v", err)
	}
	t.Setenv("COUPON_REMINDER_RETRIES", "3")
	t.Setenv("COUPON_REMINDER_WEBHOOK_URL", "ftp://hooks.example.com/")
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "COUPON_REMINDER_WEBHOOK_URL") {
		t.Fatalf("ftp URL: %v", err)
	}
}
