package reminder

import (
	"context"
	"log/slog"
	"time"
)

// Delivery is one reminder as a Sender delivers it.
type Delivery struct {
	DeliveryID   string    `json:"deliveryId"` // the same on every retry of this delivery
	UserID       int64     `json:"userId,string"`
	TemplateID   int64     `json:"templateId,string"`
	TemplateName string    `json:"templateName"`
	Channel      string    `json:"channel"`
	RemindAt     time.Time `json:"remindAt"`
}

// Sender delivers reminders. Send returns nil once the reminder is delivered; an error means it
// was not (it is retried later, with the same DeliveryID). It must be safe for concurrent use.
type Sender interface {
	Send(ctx context.Context, d Delivery) error
}

// LogSender delivers a reminder as one structured log line (level INFO, message "reminder").
type LogSender struct{}

// Send logs d; it never fails.
func (LogSender) Send(ctx context.Context, d Delivery) error {
	slog.InfoContext(ctx, "reminder", "deliveryId", d.DeliveryID, "userId", d.UserID, "templateId", d.TemplateID,
		"templateName", d.TemplateName, "channel", d.Channel, "remindAt", d.RemindAt)
	return nil
}

// Senders delivers through each sender in turn, stopping at the first that fails: a delivery is
// done when all of them took it. Put the one that can fail (the webhook) first, so the log line
// of a LogSender after it is written once, when the reminder is delivered.
type Senders []Sender

// Send sends d through each sender in order.
func (ss Senders) Send(ctx context.Context, d Delivery) error {
	for _, s := range ss {
		if err := s.Send(ctx, d); err != nil {
			return err
		}
	}
	return nil
}
