package reminder

import (
	"errors"
	"fmt"
)

// Codes of a failed delivery, the first word of a reminder's failureReason.
const (
	FailWebhookTimeout     = "WEBHOOK_TIMEOUT"     // the receiver did not answer within the timeout
	FailWebhookUnreachable = "WEBHOOK_UNREACHABLE" // no connection to the receiver (DNS, refused, TLS…)
	FailWebhookRefused     = "WEBHOOK_REFUSED"     // the receiver answered, not with a 2xx
	FailDelivery           = "DELIVERY_FAILED"     // any other sender's failure
)

// DeliveryError is a failed delivery: a code and a public message, which users see in
// myReminders.failureReason, and the detail (network errors naming internal hosts and ports),
// which only the log sees.
type DeliveryError struct {
	Code    string
	Message string // public: says what failed, names no host, address or credential
	Detail  string // for the log
}

// Error is the detail; what users see is Reason.
func (e *DeliveryError) Error() string { return e.Code + ": " + e.Detail }

// Reason is the failureReason users see: the code and the public message.
func (e *DeliveryError) Reason() string { return e.Code + ": " + e.Message }

// publicReason is what a reminder whose delivery failed with err records as its failureReason:
// a DeliveryError's Reason, else the generic DELIVERY_FAILED reason (another Sender's error text
// is never shown, as it may name internal hosts).
func publicReason(err error) string {
	var de *DeliveryError
	if errors.As(err, &de) {
		return truncate(de.Reason(), maxReason)
	}
	return FailDelivery + ": the reminder could not be delivered; it is retried"
}

func webhookTimeout(detail string) error {
	return &DeliveryError{Code: FailWebhookTimeout, Message: "the reminder service did not answer in time", Detail: detail}
}

func webhookUnreachable(detail string) error {
	return &DeliveryError{Code: FailWebhookUnreachable, Message: "the reminder service could not be reached", Detail: detail}
}

func webhookRefused(status int) error {
	return &DeliveryError{Code: FailWebhookRefused, Message: fmt.Sprintf("the reminder service answered HTTP %d", status),
		Detail: fmt.Sprintf("HTTP %d", status)}
}
