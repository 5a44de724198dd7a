package issue

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Prometheus metrics of the reservation batches, served at /metrics.
var (
	rereadTotal = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_persist_rereads_total",
		Help: "Issuing transactions (T2) done again reading the users' coupons whole: not all new, clean items (a refusal, drift, a replayed item or a repeated requestId breaking a unique key).",
	})
	sweptTotal = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_stock_batches_swept_total",
		Help: "OPEN stock_batch headers a crash left behind, settled by the sweep from the coupons it found.",
	})
	busyTotal = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_stock_batches_busy_total",
		Help: "Reservations (T1) put off because the template's stock was short while other batches of it were still OPEN.",
	})
)
