package graph

import (
	"context"
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
}

// NewHandler returns the /query handler: POST, GET, multipart and websocket transports, a parsed
// query cache, automatic persisted queries, complexity and depth limits, typed error mapping and
// panic recovery. HTTP authentication is done by auth.Signer.Middleware in front of it.
func NewHandler(r *Resolver, cfg HandlerConfig) *handler.Server {
	es := generated.NewExecutableSchema(generated.Config{
		Resolvers:  r,
		Directives: generated.DirectiveRoot{HasRole: HasRole},
	})
	srv := handler.New(es)
	srv.AddTransport(transport.Websocket{
		KeepAlivePingInterval: 10 * time.Second,
		InitFunc:              wsAuth(cfg.Signer),
	})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.AddTransport(transport.MultipartForm{MaxUploadSize: 64 << 20, MaxMemory: 8 << 20})

	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)})
	if cfg.Introspection {
		srv.Use(extension.Introspection{})
	}
	srv.Use(extension.FixedComplexityLimit(cfg.ComplexityLimit))
	srv.Use(depthLimit{max: cfg.DepthLimit})
	srv.SetErrorPresenter(ErrorPresenter)
	srv.SetRecoverFunc(Recover)
	return srv
}

// wsAuth authenticates a websocket connection from the "Authorization" (or "authToken") entry of
// its connection_init payload; browsers cannot set headers on websockets.
func wsAuth(s *auth.Signer) transport.WebsocketInitFunc {
	return func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
		tok := p.Authorization()
		if tok == "" {
			tok = p.GetString("authToken")
		}
		if tok == "" {
			return ctx, &p, nil
		}
		actor, err := s.Parse(strings.TrimPrefix(tok, "Bearer "))
		if err != nil {
			return ctx, nil, err
		}
		return auth.WithActor(ctx, actor), &p, nil
	}
}

var _ graphql.HandlerExtension = depthLimit{}
