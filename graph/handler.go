package graph

import (
	"cmp"
	"net/http"

	"coupond/auth"
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
	MaxUpload    int64 // the largest uploaded file of a multipart request (default 64 MiB)

	// ExecutorOnly answers every redeemCoupon with gqlgen's executor, without claim plans (the
	// reference the plans are tested against).
	ExecutorOnly bool
}

// Defaults of the pre-authentication bounds.
const (
	defaultMaxBodyBytes = 256 << 10
	defaultMaxTokens    = 5000
	defaultMaxRepeats   = 30
	defaultMaxUpload    = 64 << 20
)

// NewHandler returns the /query handler: the CORS allowlist, request size and parameter checks
// (httpEdge), POST, GET, multipart and websocket transports, a token and shape limit before
// validation (queryGuard), a parsed query cache, automatic persisted queries, complexity and
// depth limits, typed error mapping and panic recovery, and claim plans (claimPlans: a
// redeemCoupon document seen once is answered without the executor). HTTP authentication is done
// by auth.Signer.Middleware in front of it.
func NewHandler(r *Resolver, cfg HandlerConfig) http.Handler {
	h, _ := newHandler(r, cfg)
	return h
}

// newHandler is NewHandler, also returning its claim plans (nil with cfg.ExecutorOnly).
func newHandler(r *Resolver, cfg HandlerConfig) (http.Handler, *claimPlans) {
	cfg.MaxBodyBytes = cmp.Or(cfg.MaxBodyBytes, defaultMaxBodyBytes)
	cfg.MaxTokens = cmp.Or(cfg.MaxTokens, defaultMaxTokens)
	cfg.MaxRepeats = cmp.Or(cfg.MaxRepeats, defaultMaxRepeats)
	cfg.MaxUpload = cmp.Or(cfg.MaxUpload, defaultMaxUpload)
	es := generated.NewExecutableSchema(generated.Config{
		Resolvers:  r,
		Directives: generated.DirectiveRoot{HasRole: HasRole}, Complexity: complexityRoot(),
	})
	srv := handler.New(es)
	var plans *claimPlans
	if !cfg.ExecutorOnly {
		plans = newClaimPlans(es.Schema())
	}
	srv.AddTransport(websocketTransport(cfg.Signer, cfg.CORSOrigins, cfg.MaxBodyBytes))
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(postJSON{max: cfg.MaxBodyBytes, plans: plans, resolver: r})
	srv.AddTransport(transport.MultipartForm{MaxUploadSize: cfg.MaxUpload + uploadSlack, MaxMemory: 8 << 20})

	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(newQueryGuard(cfg.MaxTokens, cfg.MaxRepeats)) // before the persisted-query cache stores a query
	srv.Use(persistedQueries{extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)}})
	if cfg.Introspection {
		srv.Use(extension.Introspection{})
	}
	srv.SetDisableSuggestion(!cfg.Introspection) // "Did you mean …" would tell field names introspection hides
	srv.Use(newOperationLimits(cfg.ComplexityLimit, cfg.DepthLimit))
	srv.Use(statsLoaders{stats: r.Stats})
	if plans != nil {
		srv.Use(plans) // last: it learns only documents every check above accepted
	}
	srv.SetErrorPresenter(ErrorPresenter)
	srv.SetRecoverFunc(Recover)
	return withCORS(httpEdge{next: srv, max: cfg.MaxBodyBytes, maxUpload: cfg.MaxUpload}, cfg.CORSOrigins), plans
}

var (
	_ graphql.HandlerExtension        = (*operationLimits)(nil)
	_ graphql.OperationContextMutator = (*operationLimits)(nil)
)
