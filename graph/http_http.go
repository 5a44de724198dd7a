package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Codes of refusals made before GraphQL runs (besides BAD_USER_INPUT).
const (
	codeTooLarge = "REQUEST_TOO_LARGE"
	codeMethod   = "METHOD_NOT_ALLOWED"
)

// httpEdge is what every plain HTTP request to /query meets first (websocket upgrades go on:
// their transport has its own caps; multipart uploads meet checkUpload). It
//   - refuses a GET query string over max bytes (a POST body over max bytes is refused by
//     postJSON without reading more than max+1 of it) with 413, REQUEST_TOO_LARGE, so a 150 MB
//     body costs nothing;
//   - checks the request parameters (one JSON object; query, operationName strings; variables,
//     extensions objects) of a GET here and of a POST in postJSON, and answers a client mistake
//     with 400 and a coded, short message (BAD_USER_INPUT) instead of gqlgen's uncoded one that
//     echoes the body;
//   - answers parse and validation errors with 200 instead of gqlgen's 422 when the response is
//     application/json (GraphQL over HTTP; Apollo Client 3 treats a 422 as a network error);
//     application/graphql-response+json keeps gqlgen's 400, without a "data" entry (overHTTP).
type httpEdge struct {
	next      http.Handler
	max       int64
	maxUpload int64 // the largest uploaded file (checkUpload)
}

type getKey struct{}

// isGetRequest reports whether ctx belongs to a GET request that passed httpEdge (only those are
// marked: the POST hot path keeps its context as it is).
func isGetRequest(ctx context.Context) bool { return ctx.Value(getKey{}) != nil }

func (e httpEdge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Upgrade") != "" {
		e.next.ServeHTTP(w, r)
		return
	}
	mediaType := mediaType(r)
	switch {
	case r.Method == http.MethodOptions:
	case r.Method == http.MethodGet:
		r = r.WithContext(context.WithValue(r.Context(), getKey{}, true))
		if int64(len(r.URL.RawQuery)) > e.max {
			refuse(w, r, http.StatusRequestEntityTooLarge, codeTooLarge, fmt.Sprintf("the query string exceeds %d bytes", e.max))
			return
		}
		if msg := checkGetParams(r.URL.RawQuery); msg != "" {
			refuse(w, r, http.StatusBadRequest, string(CodeBadUserInput), msg)
			return
		}
	case r.Method == http.MethodPost && mediaType == "multipart/form-data":
		var ok bool
		if w, r, ok = checkUpload(w, r, e.maxUpload); !ok {
			return
		}
	case r.Method == http.MethodPost && mediaType == "application/json":
		// postJSON reads, checks and decodes the body in one pass.
	case r.Method == http.MethodPost:
		refuse(w, r, http.StatusUnsupportedMediaType, string(CodeBadUserInput),
			"a POST body must be application/json (multipart/form-data for uploads)")
		return
	default:
		w.Header().Set("Allow", "GET, POST, OPTIONS")
		refuse(w, r, http.StatusMethodNotAllowed, codeMethod, "use GET or POST")
		return
	}
	e.next.ServeHTTP(&overHTTP{ResponseWriter: w}, r)
}

// readBody reads at most limit bytes of the body; a longer one (by Content-Length or as it is
// read) is refused with 413 and a message.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, int, string) {
	tooLarge := func() string { return fmt.Sprintf("the request body exceeds %d bytes", limit) }
	if r.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge, tooLarge()
	}
	// Room for a declared length and the final empty read: such a body is read without regrowing.
	buf := bytes.NewBuffer(make([]byte, 0, max(r.ContentLength, 0)+bytes.MinRead))
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, http.StatusRequestEntityTooLarge, tooLarge()
	case err != nil:
		return nil, http.StatusBadRequest, "the request body could not be read"
	}
	return buf.Bytes(), 0, ""
}

// checkPostParams returns what is wrong with a POST body, or "".
func checkPostParams(body []byte) string {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return "the request body is empty; send {\"query\": \"...\"}"
	case trimmed[0] == '[':
		return "batched requests (a JSON array) are not supported; send one operation per request"
	}
	var p struct {
		Query, OperationName, Variables, Extensions json.RawMessage
	}
	if err := json.Unmarshal(trimmed, &p); err != nil {
		return "the request body is not a JSON object: " + truncate(err.Error(), 120)
	}
	return checkParams(p.Query, p.OperationName, p.Variables, p.Extensions)
}

// checkGetParams returns what is wrong with a GET query string, or "".
func checkGetParams(rawQuery string) string {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return "the query string is malformed: " + truncate(err.Error(), 120)
	}
	str := func(k string) json.RawMessage {
		if !q.Has(k) {
			return nil
		}
		b, _ := json.Marshal(q.Get(k))
		return b
	}
	raw := func(k string) json.RawMessage {
		if q.Get(k) == "" {
			return nil
		}
		return json.RawMessage(strings.TrimSpace(q.Get(k)))
	}
	for _, k := range []string{"variables", "extensions"} {
		if v := q.Get(k); v != "" && !json.Valid([]byte(v)) {
			return k + " is not valid JSON"
		}
	}
	return checkParams(str("query"), str("operationName"), raw("variables"), raw("extensions"))
}

// checkParams checks the GraphQL-over-HTTP request parameters (each nil when absent, else
// valid JSON).
func checkParams(query, operationName, variables, extensions json.RawMessage) string {
	isNull := func(m json.RawMessage) bool { return m == nil || string(m) == "null" }
	isString := func(m json.RawMessage) bool { return len(m) > 0 && m[0] == '"' }
	isObject := func(m json.RawMessage) bool { return len(m) > 0 && m[0] == '{' }
	switch {
	case !isNull(query) && !isString(query):
		return "query must be a string"
	case !isNull(operationName) && !isString(operationName):
		return "operationName must be a string"
	case !isNull(variables) && !isObject(variables):
		return "variables must be a JSON object"
	case !isNull(extensions) && !isObject(extensions):
		return "extensions must be a JSON object"
	case isNull(query) && !strings.Contains(string(extensions), `"persistedQuery"`):
		return "the query parameter is missing"
	}
	return ""
}

// refuse answers with one coded GraphQL error, in the media type the client accepts.
func refuse(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	ct := "application/json"
	if accept := r.Header.Get("Accept"); strings.Contains(accept, "application/graphql-response+json") &&
		!strings.Contains(accept, "application/json") {
		ct = "application/graphql-response+json"
	}
	w.Header().Set("Content-Type", ct+"; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"errors": gqlerror.List{{
		Message:    msg,
		Extensions: map[string]any{"code": code},
	}}})
}

// overHTTP adjusts gqlgen's answers to GraphQL over HTTP: a 422 (parse and validation errors)
// becomes 200 when the response is application/json, and a 400 answer in
// application/graphql-response+json carries no "data" entry (gqlgen writes "data": null).
type overHTTP struct {
	http.ResponseWriter
	status int
}

func (w *overHTTP) WriteHeader(status int) {
	if status == http.StatusUnprocessableEntity && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		status = http.StatusOK
	}
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// Write passes b on, without a null "data" entry in a 400 graphql-response+json answer (gqlgen
// writes each answer in one Write).
func (w *overHTTP) Write(b []byte) (int, error) {
	if w.status == http.StatusBadRequest && strings.HasPrefix(w.Header().Get("Content-Type"), "application/graphql-response+json") {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) == nil && string(m["data"]) == "null" {
			delete(m, "data")
			if fixed, err := json.Marshal(m); err == nil {
				_, err = w.ResponseWriter.Write(fixed)
				return len(b), err
			}
		}
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *overHTTP) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// truncate shortens s to at most n bytes (on a rune boundary), marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
