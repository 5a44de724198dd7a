package graph

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
)

// postJSON is the transport of POST requests with an application/json body, in place of gqlgen's
// transport.POST, with the same answers (status codes, Content-Type negotiation, error shapes). It
// reads at most max bytes of the body and decodes it once: the checks of the request parameters
// (decodePost) and the parameters themselves come from the same pass, where httpEdge used to parse
// the body for the checks and gqlgen parsed it again. A response that is data alone is written as
// it is (writeResponse). This is the claim path's transport, so its cost is paid on every claim.
type postJSON struct {
	max int64
}

func (postJSON) Supports(r *http.Request) bool {
	return r.Method == http.MethodPost && r.Header.Get("Upgrade") == "" && mediaType(r) == "application/json"
}

func (t postJSON) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	start := graphql.Now()
	body, status, msg := readBody(w, r, t.max)
	var params *graphql.RawParams
	if msg == "" {
		params, msg = decodePost(body)
		status = http.StatusBadRequest
	}
	if msg != "" {
		code := string(CodeBadUserInput)
		if status == http.StatusRequestEntityTooLarge {
			code = codeTooLarge
		}
		refuse(w, r, status, code, msg)
		return
	}
	contentType := responseContentType(r.Header.Get("Accept"))
	w.Header().Set("Content-Type", contentType)
	ctx := r.Context()
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	rc, opErr := exec.CreateOperationContext(ctx, params)
	if opErr != nil {
		status := http.StatusOK
		if errcode.GetErrorKind(opErr) == errcode.KindProtocol {
			status = http.StatusUnprocessableEntity // overHTTP turns it into 200 for application/json
			if contentType == "application/graphql-response+json" {
				status = http.StatusBadRequest
			}
		}
		w.WriteHeader(status)
		writeResponse(w, exec.DispatchError(graphql.WithOperationContext(ctx, rc), opErr))
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, rc)
	writeResponse(w, responses(ctx))
}

// mediaType is the request's Content-Type without parameters, lower case ("" when malformed).
func mediaType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "application/json" { // what clients send
		return ct
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt
}

// responseContentType is the media type of the answer to a request that accepts accept: the
// first of application/json and application/graphql-response+json it lists (application/json
// for no Accept header, */* or application/*), else application/graphql-response+json. It is
// gqlgen's negotiation (transport.POST with no explicit headers).
func responseContentType(accept string) string {
	if accept == "" {
		return "application/json"
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "*/*", "application/*", "application/json":
			return "application/json"
		case "application/graphql-response+json":
			return "application/graphql-response+json"
		}
	}
	return "application/graphql-response+json"
}

// postBody is a POST body as gqlgen's transport.POST decodes it, telling an absent (or null) query
// and operation name from empty ones.
type postBody struct {
	Query         *string        `json:"query"`
	OperationName *string        `json:"operationName"`
	Variables     map[string]any `json:"variables"`
	Extensions    map[string]any `json:"extensions"`
}

// decodePost returns the parameters of a POST body, or a short message saying what is wrong with
// it (checkPostParams). A well-formed body with a query, the claim path's, is decoded in one pass
// (numbers in variables and extensions stay json.Number, as gqlgen decodes them); any other body
// is judged by checkPostParams, so every refusal reads as it always did.
func decodePost(body []byte) (*graphql.RawParams, string) {
	trimmed := bytes.TrimSpace(body)
	var b postBody
	d := json.NewDecoder(bytes.NewReader(trimmed))
	d.UseNumber()
	decoded := len(trimmed) > 0 && trimmed[0] == '{' && d.Decode(&b) == nil && d.InputOffset() == int64(len(trimmed))
	if !decoded || b.Query == nil {
		if msg := checkPostParams(trimmed); msg != "" {
			return nil, msg
		}
		if !decoded {
			return nil, "the request body could not be decoded"
		}
	}
	p := &graphql.RawParams{Variables: b.Variables, Extensions: b.Extensions}
	if b.Query != nil {
		p.Query = *b.Query
	}
	if b.OperationName != nil {
		p.OperationName = *b.OperationName
	}
	return p, ""
}

// writeResponse writes resp as gqlgen does (json.Marshal of the response), but a response that is
// data alone is written around its data directly: gqlgen's executor wrote that data as compact
// JSON already, and json.Marshal would scan it once more to compact and validate it. Data holding
// characters json.Marshal escapes for HTML (< > & U+2028 U+2029) goes through json.Marshal, so
// the bytes are the same either way.
func writeResponse(w io.Writer, resp *graphql.Response) {
	if len(resp.Errors) == 0 && len(resp.Data) > 0 && resp.Label == "" && resp.Path == nil &&
		resp.HasNext == nil && resp.Extensions == nil && !htmlEscaped(resp.Data) {
		buf := make([]byte, 0, len(`{"data":}`)+len(resp.Data))
		buf = append(append(append(buf, `{"data":`...), resp.Data...), '}')
		w.Write(buf)
		return
	}
	b, err := json.Marshal(resp)
	if err != nil {
		panic("marshal the response: " + err.Error()) // gqlgen's writer panics too; Recover answers INTERNAL
	}
	w.Write(b)
}

// htmlEscaped reports whether json.Marshal escapes any of data's characters for HTML (< > &
// U+2028 U+2029). It is bytes.ContainsAny(data, "<>&\u2028\u2029") by vectorized byte scans:
// ContainsAny with characters beyond ASCII decodes data rune by rune, a tenth of an
// applicableCoupons call's CPU on a 200-coupon wallet.
func htmlEscaped(data []byte) bool {
	return bytes.IndexByte(data, '<') >= 0 || bytes.IndexByte(data, '>') >= 0 || bytes.IndexByte(data, '&') >= 0 ||
		bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029"))
}
