package reconcile

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Drift metrics, served at /metrics. Per-template series exist only for templates whose books are
// broken now (deleted when they balance again or the template ends): bounded by the drifting
// templates, four series each.
var (
	driftUnits = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "coupond_reconcile_drift",
		Help: "Size of a template's broken equation at its last reconciliation: units for mysql, redis and total, users off for users, units off for batches (settled stock batches whose coupons do not match); no series when it balances.",
	}, []string{"template", "equation"})
	driftsRecorded = promauto.NewCounter(prometheus.CounterOpts{
		Name: "coupond_reconcile_drifts_recorded_total",
		Help: "Distinct drifts the reconciliation found and recorded in a template's audit trail (RECONCILE_DRIFT).",
	})
	checksTotal = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "coupond_reconcile_checks_total",
		Help: "Templates the periodic reconciliation checked, by result (balanced, drift).",
	}, []string{"result"})
	lastRun = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "coupond_reconcile_last_run_timestamp_seconds",
		Help: "When the last periodic reconciliation run ended.",
	})
)

// equationsOf are the equation labels of coupond_reconcile_drift.
var equationsOf = []string{"mysql", "redis", "total", "users", "batches"}

// observe sets the drift series of rep's template from its broken equations.
func observe(rep *Report) {
	tpl := strconv.FormatInt(rep.TemplateID, 10)
	size := map[string]float64{}
	for _, b := range rep.breaks {
		switch {
		case strings.HasPrefix(b.kind, "user:"):
			size["users"]++
		case strings.HasPrefix(b.kind, "batch:"):
			size["batches"] += float64(max(b.delta, -b.delta))
		case b.delta < 0:
			size[b.kind] += float64(-b.delta)
		default:
			size[b.kind] += float64(b.delta)
		}
	}
	for _, eq := range equationsOf {
		if v, ok := size[eq]; ok {
			driftUnits.WithLabelValues(tpl, eq).Set(v)
		} else {
			driftUnits.DeleteLabelValues(tpl, eq)
		}
	}
	if rep.Balanced {
		checksTotal.WithLabelValues("balanced").Inc()
	} else {
		checksTotal.WithLabelValues("drift").Inc()
	}
}

// forgetSeries deletes the drift series of template id.
func forgetSeries(id int64) {
	driftUnits.DeletePartialMatch(prometheus.Labels{"template": strconv.FormatInt(id, 10)})
}
