package graph

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

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
	srv.AddTransport(transport.Websocket{
		Implementation:        websocketOrigins(cfg.CORSOrigins),
		KeepAlivePingInterval: 10 * time.Second,
		InitFunc:              wsAuth(cfg.Signer),
		PayloadReadLimit:      &cfg.MaxBodyBytes,
	})
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
	if plans != nil {
		srv.Use(plans) // last: it learns only documents every check above accepted
	}
	srv.SetErrorPresenter(ErrorPresenter)
	srv.SetRecoverFunc(Recover)
	return withCORS(httpEdge{next: srv, max: cfg.MaxBodyBytes, maxUpload: cfg.MaxUpload}, cfg.CORSOrigins), plans
}

// Websocket close codes of a refused connection_init (graphql-ws: 4400 Bad request, 4401
// Unauthorized); clients treat them as fatal instead of reconnecting at once as after 1000.
// (4403 Forbidden has no case here: every role may open a socket, and an operation the caller
// may not run answers a FORBIDDEN GraphQL error on that operation.)
const (
	wsCloseBadRequest   = 4400
	wsCloseUnauthorized = 4401
)

// wsAuth authenticates a websocket connection from the "Authorization" (or "authToken") entry of
// its connection_init payload; browsers cannot set headers on websockets. No token: an anonymous
// connection. A token that is not valid closes the socket with 4401; a payload whose token entry
// is not a string with 4400. The ack carries no payload (never an echo of the token).
func wsAuth(s *auth.Signer) transport.WebsocketInitFunc {
	return func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
		for _, k := range []string{"Authorization", "authorization", "authToken"} {
			if v, ok := p[k]; ok {
				if _, isString := v.(string); !isString {
					return refuseWebsocket(ctx, wsCloseBadRequest, "the "+k+" entry of connection_init must be a string")
				}
			}
		}
		tok := p.Authorization()
		if tok == "" {
			tok = p.GetString("authToken")
		}
		if tok == "" {
			return ctx, nil, nil
		}
		actor, err := s.Parse(strings.TrimPrefix(tok, "Bearer "))
		if err != nil {
			return refuseWebsocket(ctx, wsCloseUnauthorized, "unauthenticated: the token is not valid")
		}
		return auth.WithActor(ctx, actor), nil, nil
	}
}

// refuseWebsocket makes gqlgen close the socket with code and reason (reason is also sent as
// the connection error; it must not echo the token).
func refuseWebsocket(ctx context.Context, code int, reason string) (context.Context, *transport.InitPayload, error) {
	ctx = transport.WithWebsocketCloseCode(ctx, code)
	return transport.AppendCloseReason(ctx, reason), nil, errors.New(reason)
}

var (
	_ graphql.HandlerExtension        = (*operationLimits)(nil)
	_ graphql.OperationContextMutator = (*operationLimits)(nil)
)
