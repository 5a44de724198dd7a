package reminder

import (
	"coupond/defaults"

	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Headers of a webhook delivery.
const (
	HeaderDelivery  = "X-Coupond-Delivery"
	HeaderTimestamp = "X-Coupond-Timestamp"
	HeaderSignature = "X-Coupond-Signature"
)

// Webhook delivers a reminder by POSTing it as JSON to a URL: body {deliveryId, userId,
// templateId, templateName, channel, remindAt}, headers X-Coupond-Delivery (the delivery id),
// X-Coupond-Timestamp (unix seconds of this attempt) and X-Coupond-Signature ("sha256=" and the
// hex HMAC-SHA256 of "<timestamp>.<body>" under the secret). Any 2xx answer is success; any other
// answer (redirects are not followed), a transport error or no answer within the timeout is a
// failure, returned as a *DeliveryError (WEBHOOK_REFUSED, WEBHOOK_UNREACHABLE, WEBHOOK_TIMEOUT)
// whose public reason names no host or address.
//
// A receiver verifies the signature and refuses a timestamp more than 5 minutes from its clock
// (VerifyWebhook does both), so a captured delivery cannot be replayed later.
type Webhook struct {
	url    string
	secret []byte
	client *http.Client
	now    func() time.Time
}

// NewWebhook returns the webhook sender of url, signing with secret; timeout bounds each request
// (0: defaults.ReminderWebhookTimeout).
func NewWebhook(target, secret string, timeout time.Duration) *Webhook {
	if timeout <= 0 {
		timeout = defaults.ReminderWebhookTimeout
	}
	return &Webhook{url: target, secret: []byte(secret), now: time.Now, client: &http.Client{
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Sign is the X-Coupond-Signature value of body sent at timestamp (unix seconds) under secret.
func Sign(secret []byte, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(timestamp))
	mac.Write([]byte("."))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// MaxWebhookAge is the oldest (or most future) X-Coupond-Timestamp a receiver should accept.
const MaxWebhookAge = 5 * time.Minute

// VerifyWebhook is the receiver's check of a delivery: nil when signature is Sign(secret,
// timestamp, body) and timestamp (unix seconds) is within MaxWebhookAge of now; an error saying
// which check failed otherwise. A receiver that also remembers the X-Coupond-Delivery ids it took
// in the last MaxWebhookAge refuses every replay.
func VerifyWebhook(secret []byte, timestamp, signature string, body []byte, now time.Time) error {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("webhook: the timestamp is not unix seconds")
	}
	if !hmac.Equal([]byte(signature), []byte(Sign(secret, timestamp, body))) {
		return errors.New("webhook: the signature does not match")
	}
	if age := now.Sub(time.Unix(sec, 0)); age > MaxWebhookAge || age < -MaxWebhookAge {
		return fmt.Errorf("webhook: the timestamp is %s away from now (at most %s)", age.Round(time.Second), MaxWebhookAge)
	}
	return nil
}

// Send POSTs d.
func (w *Webhook) Send(ctx context.Context, d Delivery) error {
	d.RemindAt = d.RemindAt.UTC()
	body, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("webhook: encode: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	ts := strconv.FormatInt(w.now().Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderDelivery, d.DeliveryID)
	req.Header.Set(HeaderTimestamp, ts)
	req.Header.Set(HeaderSignature, Sign(w.secret, ts, body))
	resp, err := w.client.Do(req)
	if err != nil {
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			return webhookTimeout("no answer within the timeout: " + transportError(err))
		}
		return webhookUnreachable(transportError(err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return webhookRefused(resp.StatusCode)
	}
	return nil
}

// transportError is err without the URL (which may carry credentials) that net/http puts in it.
func transportError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
