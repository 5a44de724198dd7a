package graph

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"
	"github.com/rs/cors"
)

// ParseOrigins reads a comma-separated allowlist of browser origins (COUPON_CORS_ORIGINS):
// exact origins such as "https://admin.example.com" or "http://localhost:3000", or "*" alone
// for any origin. An empty list allows no cross-origin browser requests.
func ParseOrigins(s string) ([]string, error) {
	var out []string
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if item == "*" {
			out = append(out, item)
			continue
		}
		u, err := url.Parse(item)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("COUPON_CORS_ORIGINS: %q is not an origin like https://admin.example.com", item)
		}
		out = append(out, strings.ToLower(u.Scheme+"://"+u.Host))
	}
	if slices.Contains(out, "*") && len(out) > 1 {
		return nil, fmt.Errorf("COUPON_CORS_ORIGINS: \"*\" cannot be combined with other origins")
	}
	return out, nil
}

// withCORS answers CORS preflights and adds CORS headers for the allowlisted origins. With "*"
// any origin may call the API without credentials (bearer tokens in the Authorization header
// still work: they are not credentials in the CORS sense); listed origins may also send
// credentials. A request from any other origin gets no CORS headers, so browsers withhold the
// answer.
func withCORS(h http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		return h
	}
	return cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost},
		AllowedHeaders: []string{"Authorization", "Content-Type", "Accept", "Apollo-Require-Preflight",
			"X-Apollo-Operation-Name", "Apollo-Client-Name", "Apollo-Client-Version"},
		AllowCredentials: !slices.Contains(origins, "*"),
		MaxAge:           600,
	}).Handler(h)
}

// websocketOrigins makes the websocket upgrade accept the same origins as withCORS (and the
// server's own host, and clients that send no Origin); any other origin gets 403.
func websocketOrigins(origins []string) transport.WebsocketImplementation {
	opts := coderws.AcceptOptions{InsecureSkipVerify: slices.Contains(origins, "*")}
	for _, o := range origins {
		opts.OriginPatterns = append(opts.OriginPatterns, escapePattern(o))
	}
	return transport.CoderWebsocketImplementation{AcceptOptions: opts}
}

// escapePattern quotes the path.Match metacharacters of an exact origin ("http://[::1]:3000").
func escapePattern(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`).Replace(s)
}
