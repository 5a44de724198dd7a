package reminder

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Prometheus metrics of reminders, served at /metrics.
var (
	remindersTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "coupond_reminders_total",
		Help: "Reminders done, by result: sent (delivered), failed (every retry failed), skipped (their template ended first).",
	}, []string{"result"})
	deliveryFailures = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_reminder_delivery_failures_total",
		Help: "Reminder delivery attempts that failed (each is retried with backoff until the retries run out).",
	})
)

func init() {
	for _, r := range []string{"sent", "failed", "skipped"} {
		remindersTotal.WithLabelValues(r) // shown at 0 before the first reminder
	}
}
