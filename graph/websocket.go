package graph

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"coupond/auth"
	"coupond/coupon"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Websocket close codes (graphql-ws: 4400 Bad request, 4401 Unauthorized, 4408 Connection
// initialisation timeout); clients treat them as fatal instead of reconnecting at once as after
// 1000. (4403 Forbidden has no case here: every role may open a socket, and an operation the
// caller may not run answers a FORBIDDEN GraphQL error on that operation.)
const (
	wsCloseBadRequest   = 4400
	wsCloseUnauthorized = 4401
	wsCloseInitTimeout  = 4408
)

// Websocket session bounds.
const (
	wsInitTimeout      = 10 * time.Second // connection_init must arrive within it (4408)
	wsPingInterval     = 10 * time.Second // a graphql-transport-ws peer that answers no ping for twice this is dropped
	wsMaxSubscriptions = 20               // subscriptions open at once on one socket
)

// errTokenExpired ends a socket's context at its token's exp.
var errTokenExpired = errors.New("the token expired")

// websocketTransport is the /query websocket (graphql-transport-ws, and the legacy graphql-ws):
// the Origin checked against origins, messages capped at maxMessage, each socket a session that
// is authenticated by its connection_init (or the upgrade's Authorization header) and ends with
// its token (see session).
func websocketTransport(s *auth.Signer, origins []string, maxMessage int64) graphql.Transport {
	return sessions{signer: s, ws: transport.Websocket{
		Implementation:        websocketOrigins(origins),
		KeepAlivePingInterval: wsPingInterval, // graphql-ws (legacy): "ka" messages
		PingPongInterval:      wsPingInterval, // graphql-transport-ws: ping, and a read deadline of two intervals until the pong
		PayloadReadLimit:      &maxMessage,
	}}
}

// sessions runs every websocket as a session.
type sessions struct {
	signer *auth.Signer
	ws     transport.Websocket
}

func (t sessions) Supports(r *http.Request) bool { return t.ws.Supports(r) }

// Do serves one socket with gqlgen's transport, configured for its session.
func (t sessions) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	s := &session{signer: t.signer, header: r.Header.Get("Authorization"), accept: t.ws.Implementation}
	defer s.end()
	ws := t.ws
	ws.Implementation = s
	ws.InitFunc = s.init
	ws.Do(w, r, sessionExecutor{exec, s})
}

// A session is one socket: closed with 4408 unless connection_init arrives within wsInitTimeout,
// authenticated by it (its "Authorization" or "authToken" entry, else the upgrade request's
// Authorization header; none: anonymous), and, with a token, ended at the token's exp: the
// socket's context ends then (every open operation is cancelled), the socket closes with 4401,
// and nothing more is run or written for it. At most wsMaxSubscriptions subscriptions are open at
// once; one more is refused (RATE_LIMITED) and the socket stays.
type session struct {
	signer *auth.Signer
	header string // the upgrade request's Authorization header
	accept transport.WebsocketImplementation

	mu        sync.Mutex
	conn      transport.WebsocketConn
	initTimer *time.Timer
	state     sessionState
	expired   func() bool        // reports whether the token's exp has passed (nil: no token)
	cancel    context.CancelFunc // releases the exp deadline
	subs      int                // subscriptions open
}

type sessionState int

const (
	awaitingInit sessionState = iota
	initialised
	closed // by the session itself (4408)
)

// Accept upgrades the request and starts the connection_init timer.
func (s *session) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	c, err := s.accept.Accept(w, r, o)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.conn = c
	s.initTimer = time.AfterFunc(wsInitTimeout, s.initTimedOut)
	s.mu.Unlock()
	return sessionConn{c, s}, nil
}

func (s *session) initTimedOut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != awaitingInit {
		return
	}
	s.state = closed
	_ = s.conn.WriteClose(wsCloseInitTimeout, "no connection_init within 10s")
	_ = s.conn.Close()
}

// init authenticates the connection_init. A token entry that is not a string closes the socket
// with 4400, a token that is not valid with 4401; the ack carries no payload (never an echo of
// the token).
func (s *session) init(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	s.mu.Lock()
	late := s.state != awaitingInit
	if !late {
		s.state = initialised
		s.initTimer.Stop()
	}
	s.mu.Unlock()
	if late {
		return refuseWebsocket(ctx, wsCloseInitTimeout, "no connection_init within 10s")
	}
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
		tok = s.header
	}
	if tok == "" {
		return ctx, nil, nil
	}
	if bearer, ok := auth.BearerToken(tok); ok { // authToken may be the bare token
		tok = bearer
	}
	actor, err := s.signer.Parse(tok)
	if err != nil {
		return refuseWebsocket(ctx, wsCloseUnauthorized, errUnauthenticated.Message)
	}
	exp := actor.Expires
	ctx, cancel := context.WithDeadlineCause(auth.WithActor(ctx, actor), exp, errTokenExpired)
	s.mu.Lock()
	s.expired = func() bool { return !time.Now().Before(exp) }
	s.cancel = cancel
	s.mu.Unlock()
	return ctx, nil, nil
}

// over reports whether the session's token has expired.
func (s *session) over() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.expired != nil && s.expired()
}

// open counts a new subscription, false when wsMaxSubscriptions are open.
func (s *session) open() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs >= wsMaxSubscriptions {
		return false
	}
	s.subs++
	return true
}

func (s *session) done() {
	s.mu.Lock()
	s.subs--
	s.mu.Unlock()
}

// end releases the session's timers once the socket is served.
func (s *session) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initTimer != nil {
		s.initTimer.Stop()
	}
	if s.cancel != nil {
		s.cancel()
	}
}

// refuseWebsocket makes gqlgen close the socket with code and reason (reason is also sent as
// the connection error; it must not echo the token).
func refuseWebsocket(ctx context.Context, code int, reason string) (context.Context, *transport.InitPayload, error) {
	ctx = transport.WithWebsocketCloseCode(ctx, code)
	return transport.AppendCloseReason(ctx, reason), nil, errors.New(reason)
}

// sessionConn is the socket as gqlgen writes to it: once the token has expired it writes
// nothing but the close, and that close is 4401 (gqlgen closes a socket whose context ended
// with 1000).
type sessionConn struct {
	transport.WebsocketConn
	s *session
}

func (c sessionConn) WriteJSON(v any) error {
	if c.s.over() {
		return errTokenExpired
	}
	return c.WebsocketConn.WriteJSON(v)
}

func (c sessionConn) WriteClose(code int, message string) error {
	if c.s.over() {
		code, message = wsCloseUnauthorized, "the token expired"
	}
	return c.WebsocketConn.WriteClose(code, message)
}

// SetReadLimit and SetReadDeadline pass gqlgen's message cap and pong deadline through.
func (c sessionConn) SetReadLimit(n int64) {
	if l, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(n)
	}
}

func (c sessionConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}

// sessionExecutor runs the socket's operations: none once the token has expired, and a
// subscription only while fewer than wsMaxSubscriptions are open (it counts until its context
// ends: completed by either side or the socket closed).
type sessionExecutor struct {
	graphql.GraphExecutor
	s *session
}

func (e sessionExecutor) DispatchOperation(ctx context.Context, rc *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	if ctx.Err() != nil || e.s.over() {
		return func(context.Context) *graphql.Response { return nil }, ctx
	}
	if rc.Operation != nil && rc.Operation.Operation == ast.Subscription {
		if !e.s.open() {
			return graphql.OneShot(e.DispatchError(ctx, gqlerror.List{gqlerror.WrapPath(nil, coupon.ErrRateLimited)})), ctx
		}
		context.AfterFunc(ctx, e.s.done)
	}
	return e.GraphExecutor.DispatchOperation(ctx, rc)
}
