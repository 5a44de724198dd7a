package archive

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Prometheus metrics of the archive's progress, served at /metrics.
var (
	movedTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "coupond_archive_rows_total",
		Help: "Coupons moved from user_coupon to user_coupon_archive, by status (EXPIRED, USED).",
	}, []string{"status"})
	keptTotal = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_archive_kept_total",
		Help: "Coupons the archive took off its queue and left in user_coupon because a LOCKED or PAID settlement names them.",
	})
	batchesTotal = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_archive_batches_total",
		Help: "Committed archive batches (one transaction each).",
	})
	lastRun = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "coupond_archive_last_run_timestamp_seconds",
		Help: "When the last complete archive run ended (unix seconds).",
	})
	runSeconds = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "coupond_archive_last_run_seconds",
		Help: "How long the last complete archive run took.",
	})
	backlogSeconds = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "coupond_archive_backlog_oldest_seconds",
		Help: "Age of the oldest coupon due for the archive and not moved yet when a run ended (0: caught up).",
	})
)
