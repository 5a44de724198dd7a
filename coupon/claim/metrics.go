package claim

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Prometheus metrics of the claim path, served at /metrics.
var (
	claimsTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "coupond_claims_total",
		Help: "Claims answered by redeemCoupon, by result (OK or the refusal code).",
	}, []string{"result"})
	persistedTotal = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_claims_persisted_total",
		Help: "Claims the persister wrote to MySQL (new coupons; replays not counted).",
	})
	driftTotal = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_claims_failed_drift_total",
		Help: "Claims Redis accepted that MySQL had no stock for (FAILED, counter given back).",
	})
	persistBatch = promauto.NewHistogram(prometheus.HistogramOpts{
		Name:    "coupond_persist_batch_claims",
		Help:    "Claims per persister transaction.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 11),
	})
)
