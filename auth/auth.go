// Package auth turns HS256 bearer tokens into coupon.Actor values: claims role (USER, MERCHANT,
// PLATFORM, SERVICE), sub (a person's user id as a decimal string; a SERVICE's name, e.g.
// "orders") and shop (a merchant's shop number; ignored for the other roles).
package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"coupond/coupon"

	"github.com/golang-jwt/jwt/v5"
	lru "github.com/hashicorp/golang-lru/v2"
)

// Claims are the token's claims.
type Claims struct {
	Role string `json:"role"`
	Shop string `json:"shop,omitempty"`
	jwt.RegisteredClaims
}

// UnmarshalJSON decodes the claims, refusing exp, iat and nbf that are not JSON numbers (the
// JWT library would read "exp": "99999999999" as a date).
func (c *Claims) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for _, k := range []string{"exp", "iat", "nbf"} {
		if v, ok := raw[k]; ok && (len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9'))) {
			return fmt.Errorf("claim %s is not a number", k)
		}
	}
	type plain Claims // without this method
	return json.Unmarshal(b, (*plain)(c))
}

// Signer issues and verifies tokens with one shared secret. Verified tokens are remembered (up to
// verifiedCacheSize, the longest remembered going first, until they expire), so a client sending
// the same token on every request pays for the HMAC and the claims decoding once. A hit only reads
// the cache (a shared lock): every request of every client looks its token up there.
type Signer struct {
	secret   []byte
	maxTTL   time.Duration
	verified *lru.Cache[string, verified]
}

// DefaultMaxTTL is the longest token lifetime a Signer issues or accepts unless MaxTTL says
// otherwise.
const DefaultMaxTTL = 24 * time.Hour

// leeway is the clock skew tolerated on iat (a token issued by a host whose clock is ahead) and
// on the lifetime; exp is exact.
const leeway = 30 * time.Second

// Option configures a Signer.
type Option func(*Signer)

// MaxTTL sets the longest lifetime (exp minus iat, or exp minus now without iat) of a token the
// Signer issues or accepts.
func MaxTTL(d time.Duration) Option { return func(s *Signer) { s.maxTTL = d } }

type verified struct {
	st      *state // the token's request state (its actor), shared by the requests that send it
	expires time.Time
}

const verifiedCacheSize = 100_000

// NewSigner returns a Signer for secret.
func NewSigner(secret string, opts ...Option) *Signer {
	c, _ := lru.New[string, verified](verifiedCacheSize) // fails only for a size <= 0
	s := &Signer{secret: []byte(secret), maxTTL: DefaultMaxTTL, verified: c}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Issue returns a signed token for the actor, valid for ttl (at most the Signer's MaxTTL).
func (s *Signer) Issue(a coupon.Actor, ttl time.Duration) (string, error) {
	if ttl > s.maxTTL {
		return "", fmt.Errorf("a token lifetime of %s exceeds the maximum of %s", ttl, s.maxTTL)
	}
	sub := strconv.FormatInt(a.UserID, 10)
	if a.Role == coupon.RoleService {
		sub = a.Service
	}
	c := Claims{
		Role: string(a.Role),
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   sub,
			IssuedAt:  jwt.NewNumericDate(time.Now()),
			ExpiresAt: jwt.NewNumericDate(time.Now().Add(ttl)),
		},
	}
	if a.Shop != 0 {
		c.Shop = strconv.FormatInt(a.Shop, 10)
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(s.secret)
}

// Parse verifies the token (HS256 only, signature and expiry) and returns its actor, whose
// Expires is the token's exp.
func (s *Signer) Parse(token string) (coupon.Actor, error) {
	st, err := s.parse(token)
	if err != nil {
		return coupon.Actor{}, err
	}
	return st.actor, nil
}

// parse is Parse returning the token's request state, the same value for every request that
// sends the token while it is remembered (the middleware stores it in each request's context).
func (s *Signer) parse(token string) (*state, error) {
	if v, ok := s.verified.Peek(token); ok && time.Now().Before(v.expires) {
		return v.st, nil
	}
	a, err := s.verify(token)
	if err != nil {
		return nil, err
	}
	st := &state{actor: a}
	s.verified.Add(token, verified{st: st, expires: a.Expires})
	return st, nil
}

// verify checks the token (HS256 only, signature, expiry, iat not in the future, a lifetime of
// at most maxTTL, numeric dates) and returns its actor (Expires: the exp claim).
func (s *Signer) verify(token string) (coupon.Actor, error) {
	var c Claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return s.secret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired())
	if err != nil {
		return coupon.Actor{}, fmt.Errorf("invalid token: %w", err)
	}
	start := time.Now()
	if c.IssuedAt != nil {
		if c.IssuedAt.After(start.Add(leeway)) {
			return coupon.Actor{}, errors.New("invalid token: iat is in the future")
		}
		start = c.IssuedAt.Time
	}
	if life := c.ExpiresAt.Sub(start); life > s.maxTTL+leeway {
		return coupon.Actor{}, fmt.Errorf("invalid token: a lifetime of %s exceeds the maximum of %s", life.Round(time.Second), s.maxTTL)
	}
	a, err := actorOf(&c)
	if err != nil {
		return coupon.Actor{}, err
	}
	a.Expires = c.ExpiresAt.Time
	return a, nil
}

// actorOf is the caller the verified claims name: a SERVICE by its name (see ServiceName), a
// person by a positive decimal user id; a MERCHANT needs a shop. The shop claim of any other role
// is ignored (a PLATFORM token administers no shop, whatever it carries).
func actorOf(c *Claims) (coupon.Actor, error) {
	a := coupon.Actor{Role: coupon.Role(c.Role)}
	switch a.Role {
	case coupon.RoleService:
		if !validServiceName(c.Subject) {
			return a, errors.New("invalid token: the sub of a SERVICE token is not a service name")
		}
		a.Service = c.Subject
		return a, nil
	case coupon.RoleUser, coupon.RoleMerchant, coupon.RolePlatform:
	default:
		return a, fmt.Errorf("invalid token: unknown role %q", c.Role)
	}
	uid, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil || uid <= 0 {
		return a, errors.New("invalid token: sub is not a user id")
	}
	a.UserID = uid
	if a.Role == coupon.RoleMerchant {
		if a.Shop, err = strconv.ParseInt(c.Shop, 10, 64); err != nil || a.Shop <= 0 {
			return a, errors.New("invalid token: a merchant token needs a shop")
		}
	}
	return a, nil
}

// maxServiceName bounds a SERVICE token's sub.
const maxServiceName = 64

// validServiceName reports whether sub names a service: 1 to 64 ASCII letters, digits, '.', '_'
// or '-', starting with a letter (so it is never mistaken for a user id).
func validServiceName(sub string) bool {
	if sub == "" || len(sub) > maxServiceName || !isLetter(sub[0]) {
		return false
	}
	for i := 0; i < len(sub); i++ {
		b := sub[i]
		if !isLetter(b) && (b < '0' || b > '9') && b != '.' && b != '_' && b != '-' {
			return false
		}
	}
	return true
}

func isLetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }

type ctxKey struct{}

// state is what the middleware learnt about the request's credentials; never changed once made.
type state struct {
	actor coupon.Actor
	err   error // a token was sent but is not valid
}

// BearerToken returns the token of an Authorization value "Bearer <token>" (spaces around the
// token trimmed); ok is false when the value is not a bearer token. Every place that reads a
// bearer token (the HTTP middleware, the websocket's connection_init, the operator's listeners)
// reads it with this.
func BearerToken(authorization string) (token string, ok bool) {
	token, ok = strings.CutPrefix(authorization, "Bearer ")
	return strings.TrimSpace(token), ok
}

// Middleware reads "Authorization: Bearer <token>" and stores the caller in the request context.
// A request without a token is anonymous; one with a bad token is remembered as such, so that
// FromContext reports the failure (UNAUTHENTICATED) instead of treating it as anonymous.
func (s *Signer) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		if h == "" {
			next.ServeHTTP(w, r)
			return
		}
		token, ok := BearerToken(h)
		var st *state
		if !ok {
			st = &state{err: errors.New("authorization header is not a bearer token")}
		} else if valid, err := s.parse(token); err != nil {
			st = &state{err: err}
		} else {
			st = valid
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, st)))
	})
}

// WithActor returns ctx carrying an authenticated actor (websocket init, jobs, tests).
func WithActor(ctx context.Context, a coupon.Actor) context.Context {
	return context.WithValue(ctx, ctxKey{}, &state{actor: a})
}

// FromContext returns the caller: (actor, true, nil) when authenticated, (zero, false, nil) when
// anonymous, and an error when a token was sent but is invalid.
func FromContext(ctx context.Context) (coupon.Actor, bool, error) {
	st, _ := ctx.Value(ctxKey{}).(*state)
	if st == nil {
		return coupon.Actor{}, false, nil
	}
	if st.err != nil {
		return coupon.Actor{}, false, st.err
	}
	return st.actor, true, nil
}
