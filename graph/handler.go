package graph

import (
	"cmp"
	"net/http"

	"coupond/auth"
	"coupond/defaults"
	"coupond/graph/generated"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
)

// HandlerConfig tunes the GraphQL endpoint.
type HandlerConfig struct {
	Signer          *auth.Signer // authenticates websocket connections (connection_init payload)
	Introspection   bool         // off in production
	ComplexityLimit int
	DepthLimit      int
	CORSOrigins     []string // browser origins allowed to call /query (ParseOrigins); nil: none

	// Bounds checked before authentication; zero means the default.
	MaxBodyBytes int64 // a POST body, a GET query string, a websocket message (default 256 KiB)
	MaxTokens    int   // lexical tokens of a document, and fields it expands to (default 5000)
	MaxRepeats   int   // fields sharing a response name in one selection set (default 30)
	MaxUpload    int64 // the largest uploaded file of a multipart request (default defaults.UploadMaxBytes)

	// ExecutorOnly answers every operation with gqlgen's executor, without the plans of
	// redeemCoupon, applicableCoupons and the settlement mutations (COUPON_CLAIM_PLANS=off; the
	// reference the plans are tested against).
	ExecutorOnly bool

	// Extensions are registered after the built-in ones, before the claim plans (which then run
	// inside them). One that intercepts fields or responses turns the plans off (plannable).
	Extensions []graphql.HandlerExtension
}

// Defaults of the pre-authentication bounds.
const (
	defaultMaxBodyBytes = 256 << 10
	defaultMaxTokens    = 5000
	defaultMaxRepeats   = 30
)

// NewHandler returns the /query handler: the CORS allowlist, request size and parameter checks
// (httpEdge), POST, GET, multipart and websocket transports, a token and shape limit before
// validation (queryGuard), a parsed query cache, automatic persisted queries, complexity and
// depth limits, typed error mapping and panic recovery, and, last, plans (claimPlans: a
// redeemCoupon, applicableCoupons, lockCoupon, confirmCouponPayment, releaseCoupon or refundCoupon
// operation answered without the executor, inside every extension before it). HTTP
// authentication is done by auth.Signer.Middleware in front of it.
func NewHandler(r *Resolver, cfg HandlerConfig) http.Handler {
	h, _ := newHandler(r, cfg)
	return h
}

// newHandler is NewHandler, also returning its claim plans (nil with cfg.ExecutorOnly).
func newHandler(r *Resolver, cfg HandlerConfig) (http.Handler, *claimPlans) {
	cfg.MaxBodyBytes = cmp.Or(cfg.MaxBodyBytes, defaultMaxBodyBytes)
	cfg.MaxTokens = cmp.Or(cfg.MaxTokens, defaultMaxTokens)
	cfg.MaxRepeats = cmp.Or(cfg.MaxRepeats, defaultMaxRepeats)
	cfg.MaxUpload = cmp.Or(cfg.MaxUpload, defaults.UploadMaxBytes)
	srv, plans := newServer(r, cfg)
	return withCORS(httpEdge{next: srv, max: cfg.MaxBodyBytes, maxUpload: cfg.MaxUpload}, cfg.CORSOrigins), plans
}

// newServer is the gqlgen server behind newHandler's HTTP checks: its transports, extensions
// (claimPlans last) and error handling.
func newServer(r *Resolver, cfg HandlerConfig) (*handler.Server, *claimPlans) {
	directives := generated.DirectiveRoot{HasRole: HasRole}
	es := generated.NewExecutableSchema(generated.Config{Resolvers: r, Directives: directives, Complexity: complexityRoot()})
	srv := handler.New(es)
	srv.AddTransport(websocketTransport(cfg.Signer, cfg.CORSOrigins, cfg.MaxBodyBytes))
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(postJSON{max: cfg.MaxBodyBytes})
	srv.AddTransport(transport.MultipartForm{MaxUploadSize: cfg.MaxUpload + uploadSlack, MaxMemory: 8 << 20})

	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	exts := []graphql.HandlerExtension{
		newQueryGuard(cfg.MaxTokens, cfg.MaxRepeats), // before the persisted-query cache stores a query
		persistedQueries{extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)}},
	}
	if cfg.Introspection {
		exts = append(exts, extension.Introspection{})
	}
	srv.SetDisableSuggestion(!cfg.Introspection) // "Did you mean …" would tell field names introspection hides
	exts = append(exts, newOperationLimits(cfg.ComplexityLimit, cfg.DepthLimit), statsLoaders{stats: r.Stats})
	exts = append(exts, cfg.Extensions...)
	for _, e := range exts {
		srv.Use(e)
	}
	var plans *claimPlans
	if !cfg.ExecutorOnly && plannable(exts) {
		plans = newClaimPlans(es.Schema(), r, directives.HasRole)
	}
	if plans != nil {
		srv.Use(plans) // last: inside every extension above, after every check
	}
	srv.SetErrorPresenter(ErrorPresenter)
	srv.SetRecoverFunc(Recover)
	return srv, plans
}

// plannable reports whether claim plans can run inside exts: none of them intercepts fields or
// responses, which the executor runs around the payload's own fields and its answer and a plan
// does not (operation and root-field interceptors, and field middleware around redeemCoupon or
// applicableCoupons itself, it runs), but statsLoaders: its per-response loader serves
// CouponTemplate.stats, which no claim payload and no planned quote selects.
func plannable(exts []graphql.HandlerExtension) bool {
	for _, e := range exts {
		if _, ok := e.(statsLoaders); ok {
			continue
		}
		_, fields := e.(graphql.FieldInterceptor)
		_, responses := e.(graphql.ResponseInterceptor)
		if fields || responses {
			return false
		}
	}
	return true
}

var (
	_ graphql.HandlerExtension        = (*operationLimits)(nil)
	_ graphql.OperationContextMutator = (*operationLimits)(nil)
)
