package reconcile

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"coupond/coupon/keys"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// Collector serves the operators' per-template figures, read from Redis at scrape time (nothing on
// the claim path): for the templates in the outbox index (those that took claims and can still
// take them; the index drops a template once it has ended and its outbox is empty) it reads, in one
// pipeline, each outbox's length and oldest entry and each hash's stock, status and end. Per-template
// series go to the top templates by outbox depth (then by id, newest first), at most Top, and only
// while the template is ACTIVE and before its end, so the cardinality is bounded and an ended
// template's series disappear with it; the totals cover every template in the index. A scrape
// costs one SMEMBERS and three cheap commands per indexed template.
type Collector struct {
	rdb     redis.UniversalClient
	top     int
	timeout time.Duration
	now     func() time.Time
}

// NewCollector returns the collector; top ≤ 0 means 20.
func NewCollector(rdb redis.UniversalClient, top int) *Collector {
	if top <= 0 {
		top = 20
	}
	return &Collector{rdb: rdb, top: top, timeout: 2 * time.Second, now: time.Now}
}

var (
	descDepth = prometheus.NewDesc("coupond_outbox_depth",
		"Claims in a template's outbox not persisted yet (top templates by depth).", []string{"template"}, nil)
	descOldest = prometheus.NewDesc("coupond_outbox_oldest_claim_age_seconds",
		"Age of the oldest claim in a template's outbox not persisted yet (top templates by depth).", []string{"template"}, nil)
	descStock = prometheus.NewDesc("coupond_template_stock_remaining",
		"Stock Redis shows for an active template (top templates by outbox depth).", []string{"template"}, nil)
	descLag = prometheus.NewDesc("coupond_persistence_lag_seconds",
		"Age of the oldest claim not persisted yet, over every template (0 when every outbox is empty).", nil, nil)
	descDepthAll = prometheus.NewDesc("coupond_outbox_depth_total",
		"Claims not persisted yet, over every template.", nil, nil)
	descTemplates = prometheus.NewDesc("coupond_outbox_templates",
		"Templates in the outbox index (took claims and can still take them).", nil, nil)
)

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descDepth, descOldest, descStock, descLag, descDepthAll, descTemplates} {
		ch <- d
	}
}

// outboxFigures is what a scrape read of one template.
type outboxFigures struct {
	id     int64
	depth  int64
	oldest time.Duration // 0 when the outbox is empty
	stock  int64
	active bool // the hash exists, says ACTIVE, and its end is ahead
}

// Collect implements prometheus.Collector. When Redis does not answer, it sends nothing (the
// scrape shows the series missing) and logs why.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	figs, err := c.read(ctx)
	if err != nil {
		slog.Warn("metrics: outbox figures unavailable", "err", err)
		return
	}
	var lag time.Duration
	var depth int64
	for _, f := range figs {
		lag, depth = max(lag, f.oldest), depth+f.depth
	}
	ch <- prometheus.MustNewConstMetric(descLag, prometheus.GaugeValue, lag.Seconds())
	ch <- prometheus.MustNewConstMetric(descDepthAll, prometheus.GaugeValue, float64(depth))
	ch <- prometheus.MustNewConstMetric(descTemplates, prometheus.GaugeValue, float64(len(figs)))
	slices.SortFunc(figs, func(a, b outboxFigures) int { return cmp.Or(cmp.Compare(b.depth, a.depth), cmp.Compare(b.id, a.id)) })
	shown := 0
	for _, f := range figs {
		if shown == c.top {
			break
		}
		if !f.active {
			continue
		}
		shown++
		tpl := strconv.FormatInt(f.id, 10)
		ch <- prometheus.MustNewConstMetric(descDepth, prometheus.GaugeValue, float64(f.depth), tpl)
		ch <- prometheus.MustNewConstMetric(descOldest, prometheus.GaugeValue, f.oldest.Seconds(), tpl)
		ch <- prometheus.MustNewConstMetric(descStock, prometheus.GaugeValue, float64(f.stock), tpl)
	}
}

// read reads every indexed template's figures in one pipeline.
func (c *Collector) read(ctx context.Context) ([]outboxFigures, error) {
	members, err := c.rdb.SMembers(ctx, keys.OutboxIndex()).Result()
	if err != nil {
		return nil, err
	}
	type cmds struct {
		id     int64
		depth  *redis.IntCmd
		oldest *redis.XMessageSliceCmd
		hash   *redis.SliceCmd
	}
	pipe := c.rdb.Pipeline()
	var all []cmds
	for _, m := range members {
		id, err := strconv.ParseInt(m, 10, 64)
		if err != nil {
			continue
		}
		all = append(all, cmds{id: id, depth: pipe.XLen(ctx, keys.Outbox(id)),
			oldest: pipe.XRangeN(ctx, keys.Outbox(id), "-", "+", 1),
			hash:   pipe.HMGet(ctx, keys.Template(id), "data", "stock", "status", "end")})
	}
	if len(all) == 0 {
		return nil, nil
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	now := c.now()
	out := make([]outboxFigures, 0, len(all))
	for _, x := range all {
		f := outboxFigures{id: x.id, depth: x.depth.Val()}
		if msgs := x.oldest.Val(); len(msgs) > 0 {
			if ms, ok := streamMillis(msgs[0].ID); ok {
				f.oldest = max(0, now.Sub(time.UnixMilli(ms)))
			}
		}
		if h := x.hash.Val(); len(h) == 4 && h[0] != nil {
			stock, _ := strconv.ParseInt(str(h[1]), 10, 64)
			end, _ := strconv.ParseInt(str(h[3]), 10, 64)
			f.stock, f.active = stock, str(h[2]) == "ACTIVE" && now.UnixMilli() < end
		}
		out = append(out, f)
	}
	return out, nil
}

// streamMillis is the milliseconds part of a stream entry id ("<ms>-<seq>").
func streamMillis(id string) (int64, bool) {
	for i := range len(id) {
		if id[i] == '-' {
			ms, err := strconv.ParseInt(id[:i], 10, 64)
			return ms, err == nil
		}
	}
	return 0, false
}

func str(v any) string { s, _ := v.(string); return s }
