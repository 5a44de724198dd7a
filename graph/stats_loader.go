package graph

import (
	"context"
	"errors"
	"time"

	"coupond/coupon/stats"
	"coupond/graph/model"
	"coupond/graph/scalar"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vikstrous/dataloadgen"
)

// statsKey is one CouponTemplate.stats field: the template and its span arguments.
type statsKey struct {
	id   int64
	span statsSpan
}

// statsSpan is the from and to arguments of a stats field (UTC; zero with has* false when left out).
type statsSpan struct {
	from, to       time.Time
	hasFrom, hasTo bool
}

// spanOf is the statsSpan of the arguments.
func spanOf(from, to *time.Time) statsSpan {
	var s statsSpan
	if from != nil {
		s.from, s.hasFrom = from.UTC(), true
	}
	if to != nil {
		s.to, s.hasTo = to.UTC(), true
	}
	return s
}

// args are the span's arguments as the stats service takes them.
func (s statsSpan) args() (from, to *time.Time) {
	if s.hasFrom {
		from = &s.from
	}
	if s.hasTo {
		to = &s.to
	}
	return from, to
}

// statsLoaderKey finds a response's loader in its context.
type statsLoaderKey struct{}

// statsLoaders gives each response (a query's, each event of a subscription) its own loader of
// CouponTemplate.stats: the fields asked for within its wait are read by one stats.Many per set
// of span arguments, and a response never reuses another's numbers. A couponTemplates page does
// not rely on that wait: prefetchStats loads its nodes' stats in one batch before they resolve,
// so a page costs a constant number of queries (no N+1) however the goroutines are scheduled.
type statsLoaders struct{ stats *stats.Service }

var (
	_ graphql.HandlerExtension    = statsLoaders{}
	_ graphql.ResponseInterceptor = statsLoaders{}
)

func (statsLoaders) ExtensionName() string                   { return "TemplateStatsLoader" }
func (statsLoaders) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse runs the response with a fresh loader.
func (l statsLoaders) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	return next(context.WithValue(ctx, statsLoaderKey{}, dataloadgen.NewLoader(l.fetch)))
}

// fetch reads the stats of keys, one stats.Many per distinct span, for the caller of the batch's
// first field (every field of a response has the same caller).
func (l statsLoaders) fetch(ctx context.Context, keys []statsKey) ([]*model.TemplateStats, []error) {
	out, errs := make([]*model.TemplateStats, len(keys)), make([]error, len(keys))
	groups := map[statsSpan][]int{}
	for i, k := range keys {
		groups[k.span] = append(groups[k.span], i)
	}
	actor := actorOf(ctx)
	for span, idx := range groups {
		ids := make([]int64, len(idx))
		for j, i := range idx {
			ids[j] = keys[i].id
		}
		from, to := span.args()
		got, gotErrs := l.stats.Many(ctx, actor, ids, from, to)
		for j, i := range idx {
			if gotErrs[j] != nil || got[j] != nil {
				out[i], errs[i] = templateStats(got[j], gotErrs[j])
			}
		}
	}
	return out, errs
}

// loadTemplateStats is the template's stats over [from, to) through the response's loader (see
// statsLoaders): nil when the caller does not manage the template.
func loadTemplateStats(ctx context.Context, id int64, from, to *time.Time) (*model.TemplateStats, error) {
	l, ok := ctx.Value(statsLoaderKey{}).(*dataloadgen.Loader[statsKey, *model.TemplateStats])
	if !ok {
		return nil, errors.New("graph: no stats loader in the response's context")
	}
	return l.Load(ctx, statsKey{id: id, span: spanOf(from, to)})
}

// prefetchStats loads, in one batch, the stats that the stats fields under the page's edges ask
// for (each span they name, for every node), so those fields are answered from the response's
// loader. A span whose arguments do not parse is left to its fields (which report the error).
func prefetchStats(ctx context.Context, page *model.CouponTemplateConnection) {
	l, ok := ctx.Value(statsLoaderKey{}).(*dataloadgen.Loader[statsKey, *model.TemplateStats])
	if !ok || len(page.Edges) == 0 {
		return
	}
	oc, fc := graphql.GetOperationContext(ctx), graphql.GetFieldContext(ctx)
	var keys []statsKey
	for _, edges := range graphql.CollectFields(oc, fc.Field.Selections, []string{"CouponTemplateConnection"}) {
		if edges.Name != "edges" {
			continue
		}
		for _, node := range graphql.CollectFields(oc, edges.Selections, []string{"CouponTemplateEdge"}) {
			if node.Name != "node" {
				continue
			}
			for _, f := range graphql.CollectFields(oc, node.Selections, []string{"CouponTemplate", "Node"}) {
				span, ok := statsSpanOf(f, oc.Variables)
				if !ok {
					continue
				}
				for _, e := range page.Edges {
					keys = append(keys, statsKey{id: e.Node.ID, span: span})
				}
			}
		}
	}
	if len(keys) > 0 {
		l.LoadAll(ctx, keys) // the errors are the fields' own
	}
}

// statsSpanOf is the span a stats field asks for (ok false for another field, or arguments
// that do not parse).
func statsSpanOf(f graphql.CollectedField, vars map[string]any) (statsSpan, bool) {
	if f.Name != "stats" {
		return statsSpan{}, false
	}
	args := f.ArgumentMap(vars)
	var times [2]*time.Time
	for i, name := range []string{"from", "to"} {
		if v, ok := args[name]; ok && v != nil {
			t, err := scalar.UnmarshalTime(v)
			if err != nil {
				return statsSpan{}, false
			}
			times[i] = &t
		}
	}
	return spanOf(times[0], times[1]), true
}
