package graph

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"coupond/auth"
)

// Codes of refused uploads (besides BAD_USER_INPUT and REQUEST_TOO_LARGE).
const codeUnauthenticatedUpload = "UNAUTHENTICATED"

// uploadSlack is what a multipart request may carry besides its file (the operations and map
// parts, part headers).
const uploadSlack = 64 << 10

// checkUpload is what a multipart/form-data request (an upload, GraphQL multipart request spec)
// meets before gqlgen's transport reads it: it needs a non-simple header (Apollo-Require-Preflight
// or X-Apollo-Operation-Name, as Apollo Server requires: a browser sends none cross-site without a
// CORS preflight, so a form on another site cannot post an upload with the user's cookies), a
// valid bearer token (an anonymous request never makes us spool a file), and a body within max
// file bytes plus uploadSlack, counted as it streams: a longer body is cut there and answered 413,
// REQUEST_TOO_LARGE. It returns the request and writer to go on with, or ok=false when it answered.
func checkUpload(w http.ResponseWriter, r *http.Request, max int64) (http.ResponseWriter, *http.Request, bool) {
	if r.Header.Get("Apollo-Require-Preflight") == "" && r.Header.Get("X-Apollo-Operation-Name") == "" {
		refuse(w, r, http.StatusBadRequest, string(CodeBadUserInput),
			"multipart requests must carry the header Apollo-Require-Preflight: true (or X-Apollo-Operation-Name), against cross-site request forgery")
		return w, r, false
	}
	if _, ok, err := auth.FromContext(r.Context()); err != nil || !ok {
		refuse(w, r, http.StatusUnauthorized, codeUnauthenticatedUpload, "uploads need a valid bearer token")
		return w, r, false
	}
	limit := max + uploadSlack
	tooLarge := fmt.Sprintf("the upload exceeds %d bytes", max)
	if r.ContentLength > limit {
		refuse(w, r, http.StatusRequestEntityTooLarge, codeTooLarge, tooLarge)
		return w, r, false
	}
	body := &cappedBody{r: r.Body, left: limit}
	r.Body = body
	return &cappedWriter{ResponseWriter: w, body: body, refuse: func() {
		refuse(w, r, http.StatusRequestEntityTooLarge, codeTooLarge, tooLarge)
	}}, r, true
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
