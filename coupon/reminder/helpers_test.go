package reminder_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/reminder"
	"coupond/coupon/template"
	"coupond/services"
	"coupond/testutil/stack"
)

const secret = "test-webhook-secret"

// newStack builds the services with cfg and, when rc is not nil, the webhook of rc's server
// (then the log line) as the reminders' sender.
func newStack(t *testing.T, name string, cfg reminder.Config, rc *receiver, worker bool) *stack.Stack {
	t.Helper()
	sc := services.Config{Reminder: cfg}
	if rc != nil {
		srv := httptest.NewServer(rc)
		t.Cleanup(srv.Close)
		sc.ReminderSender = reminder.Senders{reminder.NewWebhook(srv.URL, secret, 2*time.Second), reminder.LogSender{}}
	}
	return stack.New(t, "reminder", name, stack.Options{Config: sc, Worker: worker})
}

// upcoming creates a template of stack.Merchant whose claim window opens in opensIn.
func upcoming(t *testing.T, s *stack.Stack, opensIn time.Duration) *coupon.Template {
	t.Helper()
	return s.Template(t, 100, 1, func(in *template.CreateInput) {
		in.ValidStartTime = time.Now().Add(opensIn)
		in.ValidEndTime = time.Now().Add(opensIn + time.Hour)
	})
}

// receiver is a webhook receiver: it verifies each request's signature and timestamp itself
// (not with reminder.Sign), answers status(n) to the nth request (1-based; nil: 200 always),
// and records what it accepted by delivery id.
type receiver struct {
	status func(n int) int
	delay  time.Duration

	mu       sync.Mutex
	n        int
	accepted map[string][]wireDelivery // delivery id → accepted bodies (a healthy run: one each)
	refused  map[string]int            // delivery id → requests answered with a non-2xx
	bad      []string                  // requests with a bad signature, timestamp or body
}

type wireDelivery struct {
	DeliveryID   string    `json:"deliveryId"`
	UserID       string    `json:"userId"`
	TemplateID   string    `json:"templateId"`
	TemplateName string    `json:"templateName"`
	Channel      string    `json:"channel"`
	RemindAt     time.Time `json:"remindAt"`
}

func newReceiver(status func(n int) int) *receiver {
	return &receiver{status: status, accepted: map[string][]wireDelivery{}, refused: map[string]int{}}
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if rc.delay > 0 {
		time.Sleep(rc.delay)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.n++
	ts := r.Header.Get("X-Coupond-Timestamp")
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(body)))
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	sec, err := strconv.ParseInt(ts, 10, 64)
	var d wireDelivery
	switch {
	case r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json":
		rc.bad = append(rc.bad, "method/content type "+r.Method+" "+r.Header.Get("Content-Type"))
	case !hmac.Equal([]byte(r.Header.Get("X-Coupond-Signature")), []byte(want)):
		rc.bad = append(rc.bad, "signature "+r.Header.Get("X-Coupond-Signature"))
	case err != nil || time.Since(time.Unix(sec, 0)).Abs() > time.Minute:
		rc.bad = append(rc.bad, "timestamp "+ts)
	case json.Unmarshal(body, &d) != nil || d.DeliveryID == "" || d.DeliveryID != r.Header.Get("X-Coupond-Delivery"):
		rc.bad = append(rc.bad, "body "+string(body))
	}
	code := http.StatusOK
	if rc.status != nil {
		code = rc.status(rc.n)
	}
	if code/100 != 2 {
		rc.refused[d.DeliveryID]++
		w.WriteHeader(code)
		return
	}
	rc.accepted[d.DeliveryID] = append(rc.accepted[d.DeliveryID], d)
	w.WriteHeader(code)
}

// snapshot copies what the receiver accepted and refused so far.
func (rc *receiver) snapshot() (accepted map[string][]wireDelivery, refused map[string]int, bad []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	accepted = make(map[string][]wireDelivery, len(rc.accepted))
	for k, v := range rc.accepted {
		accepted[k] = append([]wireDelivery(nil), v...)
	}
	refused = make(map[string]int, len(rc.refused))
	for k, v := range rc.refused {
		refused[k] = v
	}
	return accepted, refused, append([]string(nil), rc.bad...)
}

// waitFor polls cond every 50 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var stackMerchant = stack.Merchant

// httptestServer serves h until the test ends and returns its URL.
func httptestServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
