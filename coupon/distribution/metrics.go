package distribution

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	rowsTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "coupond_distribution_rows_total",
		Help: "Distribution rows committed, by outcome (issued, or the failure code).",
	}, []string{"outcome"})
	sheetRowsRead = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_distribution_sheet_rows_read_total",
		Help: "Rows read from uploaded files (header and blank rows included), by the upload's checks and the runs: a run reads each row once.",
	})
	batchSeconds = promauto.NewHistogram(prometheus.HistogramOpts{
		Name:    "coupond_distribution_batch_seconds",
		Help:    "Time of one distribution batch: deduction script, transaction and settlement.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 12),
	})
)

// observeBatch counts a committed batch's rows and its duration (a replayed batch's rows were
// counted by the run that committed it).
func observeBatch(res commitResult, took time.Duration) {
	batchSeconds.Observe(took.Seconds())
	if res.replayed {
		return
	}
	rowsTotal.WithLabelValues("issued").Add(float64(len(res.plan.issued)))
	for _, o := range res.outcomes {
		rowsTotal.WithLabelValues(o.code).Inc()
	}
}
