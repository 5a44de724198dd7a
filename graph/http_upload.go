package graph

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync/atomic"

	"coupond/auth"
	"coupond/coupon"
	"coupond/graph/generated"

	"github.com/vektah/gqlparser/v2/ast"
)

// uploadSlack is what a multipart request may carry besides its file (the operations and map
// parts, part headers).
const uploadSlack = 64 << 10

// uploadRoles are the roles that may send a multipart request: those of the @hasRole of every
// operation taking an Upload (only createCouponTask: MERCHANT), read from the schema so a new
// upload operation brings its roles along.
var uploadRoles = rolesTakingUploads(generated.NewExecutableSchema(generated.Config{}).Schema())

// checkUpload is what a multipart/form-data request (an upload, GraphQL multipart request spec)
// meets before gqlgen's transport reads a byte of its body: it needs a non-simple header
// (Apollo-Require-Preflight or X-Apollo-Operation-Name, as Apollo Server requires: a browser sends
// none cross-site without a CORS preflight, so a form on another site cannot post an upload with
// the user's cookies), a valid bearer token (401 UNAUTHENTICATED) of a role that may upload (403
// FORBIDDEN: a USER's upload is refused before it is spooled), and a body within max file bytes
// plus uploadSlack, counted as it streams: a longer body is cut there and answered 413,
// REQUEST_TOO_LARGE. A refusal closes the connection instead of reading the rest of the body.
// A body of unknown length (chunked) is declared at its cap, so gqlgen's transport spools its
// file to a temporary file rather than memory (it keeps a file in memory when the request's
// ContentLength, -1 for chunked, is below MaxMemory). It returns the request and writer to go
// on with, or ok=false when it answered.
func checkUpload(w http.ResponseWriter, r *http.Request, max int64) (http.ResponseWriter, *http.Request, bool) {
	if r.Header.Get("Apollo-Require-Preflight") == "" && r.Header.Get("X-Apollo-Operation-Name") == "" {
		refuseAndClose(w, r, http.StatusBadRequest, string(CodeBadUserInput),
			"multipart requests must carry the header Apollo-Require-Preflight: true (or X-Apollo-Operation-Name), against cross-site request forgery")
		return w, r, false
	}
	actor, ok, err := auth.FromContext(r.Context())
	if err != nil || !ok {
		refuseAndClose(w, r, http.StatusUnauthorized, string(errUnauthenticated.Code), errUnauthenticated.Message)
		return w, r, false
	}
	if !slices.Contains(uploadRoles, actor.Role) {
		refuseAndClose(w, r, http.StatusForbidden, string(errForbidden.Code), errForbidden.Message)
		return w, r, false
	}
	limit := max + uploadSlack
	tooLarge := fmt.Sprintf("the upload exceeds %d bytes", max)
	if r.ContentLength > limit {
		refuseAndClose(w, r, http.StatusRequestEntityTooLarge, codeTooLarge, tooLarge)
		return w, r, false
	}
	if r.ContentLength < 0 {
		r.ContentLength = limit
	}
	body := &cappedBody{r: r.Body, left: limit}
	r.Body = body
	return &cappedWriter{ResponseWriter: w, body: body, refuse: func() {
		refuseAndClose(w, r, http.StatusRequestEntityTooLarge, codeTooLarge, tooLarge)
	}}, r, true
}

// refuseAndClose is refuse with Connection: close, so the server does not read what is left of the
// body to keep the connection alive.
func refuseAndClose(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	w.Header().Set("Connection", "close")
	refuse(w, r, status, code, msg)
}

// rolesTakingUploads returns the roles listed by the @hasRole of every root field with an
// argument that is or holds (through input objects) an Upload. A field without @hasRole would
// let any role upload; the schema has none.
func rolesTakingUploads(s *ast.Schema) []coupon.Role {
	var roles []coupon.Role
	for _, root := range []*ast.Definition{s.Query, s.Mutation, s.Subscription} {
		if root == nil {
			continue
		}
		for _, f := range root.Fields {
			takes := false
			for _, a := range f.Arguments {
				takes = takes || holdsUpload(s, a.Type.Name(), map[string]bool{})
			}
			if !takes {
				continue
			}
			if d := f.Directives.ForName("hasRole"); d != nil {
				if arg := d.Arguments.ForName("roles"); arg != nil {
					for _, c := range arg.Value.Children {
						if role := coupon.Role(c.Value.Raw); !slices.Contains(roles, role) {
							roles = append(roles, role)
						}
					}
				}
				continue
			}
			panic("graph: " + root.Name + "." + f.Name + " takes an Upload without @hasRole: say who may upload")
		}
	}
	return roles
}

// holdsUpload reports whether the named type is Upload or an input object with a field that
// holds one.
func holdsUpload(s *ast.Schema, name string, seen map[string]bool) bool {
	if name == "Upload" {
		return true
	}
	def := s.Types[name]
	if def == nil || def.Kind != ast.InputObject || seen[name] {
		return false
	}
	seen[name] = true
	for _, f := range def.Fields {
		if holdsUpload(s, f.Type.Name(), seen) {
			return true
		}
	}
	return false
}

// cappedBody reads at most left bytes of a body, then fails and remembers it did.
type cappedBody struct {
	r       io.ReadCloser
	left    int64
	tripped atomic.Bool
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.tripped.Store(true)
		return 0, fmt.Errorf("request body too large")
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.r.Close() }

// cappedWriter answers 413 REQUEST_TOO_LARGE in place of whatever gqlgen answers once the body
// was cut (gqlgen's own answer to a failed read has no code).
type cappedWriter struct {
	http.ResponseWriter
	body     *cappedBody
	refuse   func()
	answered bool
}

func (w *cappedWriter) WriteHeader(status int) {
	if w.body.tripped.Load() {
		w.answer()
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *cappedWriter) Write(b []byte) (int, error) {
	if w.body.tripped.Load() {
		w.answer()
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *cappedWriter) answer() {
	if !w.answered {
		w.answered = true
		w.refuse()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *cappedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
