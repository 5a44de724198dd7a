package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"coupond/auth"

	"github.com/coder/websocket"
)

// cpuBudget is what refusing an attack may cost the server (50 ms, scaled for the race
// detector); the attacks cost seconds each when they are not refused early.
const cpuBudget = 50 * time.Millisecond * raceSlowdown

// processCPU is the CPU time (user and system) this process has used; the test server runs in it.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// leastCPU runs f(0), f(1), f(2) and returns the least CPU the process spent on one run (the
// least drops a garbage collection or timer that happened to fall into a run). Each run must send
// a document of its own, or the parsed-query cache would hide the cost.
func leastCPU(f func(run int)) time.Duration {
	least := time.Hour
	for run := range 3 {
		before := processCPU()
		f(run)
		least = min(least, processCPU()-before)
	}
	return least
}

type rawResponse struct {
	status int
	header http.Header
	body   gqlResponse
	raw    string
}

// post sends body as it is (contentType "" sends none) and decodes the answer.
func (e *env) post(contentType, accept, body string, token string) rawResponse {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return e.send(req)
}

func (e *env) send(req *http.Request) rawResponse {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := rawResponse{status: resp.StatusCode, header: resp.Header, raw: string(b)}
	if err := json.Unmarshal(b, &out.body); err != nil {
		e.t.Fatalf("answer is not GraphQL JSON (%d): %.300s", resp.StatusCode, b)
	}
	return out
}

// everyErrorCoded fails the test for an error without extensions.code.
func everyErrorCoded(t *testing.T, r *gqlResponse) {
	t.Helper()
	for _, e := range r.Errors {
		if c, _ := e.Extensions["code"].(string); c == "" {
			t.Errorf("error without extensions.code: %+v", e)
		}
	}
}

func TestAttacksBeforeAuthAreRefusedCheaply(t *testing.T) {
	e := newEnv(t, "attacks")
	digits := strings.Repeat("9", 30_000)
	var aliases strings.Builder
	aliases.WriteString("mutation {")
	for i := range 8 {
		fmt.Fprintf(&aliases, ` a%d: createCouponTemplate(input: {name: "x", source: SHOP, target: SHOP_WIDE, type: FIXED_OFF,
		  validStartTime: "2026-01-01T00:00:00Z", validEndTime: "2027-01-01T00:00:00Z", stock: 1, limitPerPerson: 1,
		  discountAmount: "%s"}) { userErrors { code } }`, i, digits)
	}
	aliases.WriteString(" }")
	hugeVar := validInput()
	hugeVar["discountAmount"] = strings.Repeat("1", 200_000)
	var fragments strings.Builder
	fragments.WriteString(`fragment F0 on Query { couponTemplate(id: "1") { id } }`)
	for i := 1; i <= 22; i++ {
		fmt.Fprintf(&fragments, " fragment F%d on Query { ...F%d ...F%d }", i, i-1, i-1)
	}
	fragments.WriteString(" { ...F22 }")

	for _, c := range []struct {
		name, query string
		vars        map[string]any
		code        string
		status      int
	}{
		{"a million-digit Decimal in 1 MB", `{ couponTemplate(id: "` + strings.Repeat("9", 1_000_000) + `") { id } }`, nil, codeTooLarge, 413},
		{"8 aliases with a 30,000-digit Decimal", aliases.String(), nil, "BAD_USER_INPUT", 200},
		{"a 200,000-digit Decimal variable", createMutation, map[string]any{"in": hugeVar}, "BAD_USER_INPUT", 200},
		{"66 KB of __typename", "{ " + strings.Repeat("__typename ", 6000) + "}", nil, "GRAPHQL_PARSE_FAILED", 200},
		{"2400 __typename under the token limit", "{ " + strings.Repeat("__typename ", 2400) + "}", nil, codeComplexity, 200},
		{"fragments doubling 22 times", fragments.String(), nil, codeComplexity, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r rawResponse
			var size int
			cpu := leastCPU(func(run int) {
				body, _ := json.Marshal(map[string]any{"query": fmt.Sprintf("# run %d\n%s", run, c.query), "variables": c.vars})
				size = len(body)
				r = e.post("application/json", "application/json", string(body), "")
			})
			if r.status != c.status || len(r.body.Errors) == 0 {
				t.Fatalf("status %d, want %d: %.300s", r.status, c.status, r.raw)
			}
			for _, err := range r.body.Errors {
				if err.Extensions["code"] != c.code {
					t.Fatalf("error %+v, want code %s", err, c.code)
				}
			}
			if len(r.raw) > 20_000 {
				t.Errorf("the refusal is %d bytes long", len(r.raw))
			}
			t.Logf("%d bytes refused with %s in %v of CPU", size, c.code, cpu)
			if cpu > cpuBudget {
				t.Errorf("refusing it cost %v of CPU, want under %v", cpu, cpuBudget)
			}
		})
	}
}

// endlessBody is n bytes of a JSON string that a handler can only learn is too long by reading.
type endlessBody struct{ n, read int64 }

func (b *endlessBody) Read(p []byte) (int, error) {
	if b.read >= b.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), b.n-b.read)
	for i := range p[:k] {
		p[i] = 'x'
	}
	if b.read == 0 && k > 10 {
		copy(p, `{"query":"`)
	}
	b.read += k
	return int(k), nil
}

func TestAHugeBodyIsNotReadWhole(t *testing.T) {
	e := newEnv(t, "hugebody")
	for _, declared := range []bool{true, false} {
		body := &endlessBody{n: 150 << 20}
		req := httptest.NewRequest(http.MethodPost, "/", body)
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = -1 // chunked: only reading tells
		if declared {
			req.ContentLength = body.n
		}
		rec := httptest.NewRecorder()
		e.handler.ServeHTTP(rec, req)
		var r gqlResponse
		json.Unmarshal(rec.Body.Bytes(), &r)
		if rec.Code != http.StatusRequestEntityTooLarge || r.code() != codeTooLarge {
			t.Fatalf("declared length %v: %d %s", declared, rec.Code, rec.Body)
		}
		if limit := int64(defaultMaxBodyBytes) + 64<<10; body.read > limit {
			t.Fatalf("declared length %v: the handler read %d bytes of a 150 MB body", declared, body.read)
		}
	}
	long := httptest.NewRequest(http.MethodGet, "/?query="+strings.Repeat("x", defaultMaxBodyBytes), nil)
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, long)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), codeTooLarge) {
		t.Fatalf("a GET query string over the limit: %d %.200s", rec.Code, rec.Body)
	}
}

func TestClientMistakesAreCodedAndLoggedShort(t *testing.T) {
	e := newEnv(t, "mistakes")
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))

	marker := strings.Repeat("SECRET-BODY-", 5000)
	apq := func(hash, query string) string {
		b, _ := json.Marshal(map[string]any{"query": query,
			"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}})
		return string(b)
	}
	for _, c := range []struct {
		name, contentType, body, code, message string
		status                                 int
	}{
		{"malformed JSON", "application/json", `{"query": "{ __typename }", "x": "` + marker, "BAD_USER_INPUT", "not a JSON object", 400},
		{"a batched array", "application/json", `[{"query": "{ __typename }"}, {"query": "{ __typename }"}]`, "BAD_USER_INPUT", "batched", 400},
		{"an empty body", "application/json", ``, "BAD_USER_INPUT", "empty", 400},
		{"no query", "application/json", `{"qeury": "{ __typename }"}`, "BAD_USER_INPUT", "query parameter is missing", 400},
		{"variables not an object", "application/json", `{"query": "{ __typename }", "variables": [1]}`, "BAD_USER_INPUT", "variables must be", 400},
		{"a text body", "text/plain", `{ __typename }`, "BAD_USER_INPUT", "application/json", 415},
		{"no content type", "", `{"query": "{ __typename }"}`, "BAD_USER_INPUT", "application/json", 415},
		{"an unknown persisted query", "application/json", apq(strings.Repeat("ab", 32), ""), "PERSISTED_QUERY_NOT_FOUND", "", 200},
		{"a wrong persisted-query hash", "application/json", apq(strings.Repeat("ab", 32), "{ __typename }"), "BAD_USER_INPUT", "does not match", 200},
		{"a syntax error", "application/json", `{"query": "{ __typename "}`, "GRAPHQL_PARSE_FAILED", "", 200},
		{"an unknown field", "application/json", `{"query": "{ nope }"}`, "GRAPHQL_VALIDATION_FAILED", "", 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.post(c.contentType, "", c.body, "")
			if r.status != c.status || r.body.code() != c.code || !strings.Contains(r.body.Errors[0].Message, c.message) {
				t.Fatalf("%d %.300s; want %d %s %q", r.status, r.raw, c.status, c.code, c.message)
			}
			everyErrorCoded(t, &r.body)
			if strings.Contains(r.raw, "SECRET-BODY") {
				t.Fatal("the answer echoes the body")
			}
		})
	}
	put, _ := http.NewRequest(http.MethodPut, e.srv.URL, strings.NewReader(`{"query": "{ __typename }"}`))
	if r := e.send(put); r.status != 405 || r.body.code() != codeMethod {
		t.Fatalf("PUT: %d %s", r.status, r.raw)
	}
	get, _ := http.NewRequest(http.MethodGet, e.srv.URL+"?query=mutation%7B__typename%7D", nil)
	if r := e.send(get); r.body.code() != "BAD_USER_INPUT" || !strings.Contains(r.body.Errors[0].Message, "POST") {
		t.Fatalf("GET mutation: %d %s", r.status, r.raw)
	}
	badVars, _ := http.NewRequest(http.MethodGet, e.srv.URL+"?query=%7B__typename%7D&variables=%7Bnope", nil)
	if r := e.send(badVars); r.status != 400 || r.body.code() != "BAD_USER_INPUT" {
		t.Fatalf("GET with malformed variables: %d %s", r.status, r.raw)
	}

	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`) {
			t.Errorf("a client mistake was logged above INFO: %.300s", line)
		}
		if len(line) > 1000 || strings.Contains(line, "SECRET-BODY") {
			t.Errorf("a log line of %d bytes (the body?): %.300s", len(line), line)
		}
	}
}

func TestTimeInputsAreCheckedAndInRange(t *testing.T) {
	e := newEnv(t, "times")
	merchant := e.token(shopA)
	for _, bad := range []any{
		"2026-13-01T00:00:00Z",        // no 13th month
		"2026-01-01T00:00:00",         // no zone
		"2026-01-01",                  // a date
		json.Number("1767225600"),     // a number
		"0001-01-01T00:00:00Z",        // stored as 0000-00-00 by the driver
		"1969-12-31T23:59:59Z",        // before MinTime
		"9999-12-31T23:00:00-05:00",   // 10000-01-01 in UTC
		strings.Repeat("2026", 50000), // long
	} {
		in := validInput()
		in["validStartTime"] = bad
		r := e.do(merchant, createMutation, map[string]any{"in": in})
		if r.code() != "BAD_USER_INPUT" || len(r.Errors[0].Message) > 300 {
			t.Errorf("validStartTime %.40v: %+v", bad, r.Errors)
		}
	}
	lit := e.do(merchant, `mutation { createCouponTemplate(input: {name: "x", source: SHOP, target: SHOP_WIDE,
	  type: FIXED_OFF, validStartTime: "2026-13-01T00:00:00Z", validEndTime: "2027-01-01T00:00:00Z", stock: 1,
	  limitPerPerson: 1, discountAmount: "1"}) { userErrors { code } } }`, nil)
	if lit.code() != "BAD_USER_INPUT" || !strings.Contains(lit.Errors[0].Message, "RFC 3339") {
		t.Errorf("a literal Time argument: %+v", lit.Errors)
	}
	page := e.do(merchant, `{ couponTemplates { totalCount } }`, nil)
	if got := string(page.Data["couponTemplates"]); got != `{"totalCount":0}` {
		t.Fatalf("refused inputs created templates: %s %+v", got, page.Errors)
	}
	in := validInput()
	in["validStartTime"], in["validEndTime"] = "1970-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z"
	if p := field[payloadJSON](t, e.do(merchant, createMutation, map[string]any{"in": in}), "createCouponTemplate"); p.Template == nil {
		t.Fatalf("the ends of the range were refused: %+v", p)
	}
}

func TestOneBadStoredTimeDoesNotBreakAPage(t *testing.T) {
	e := newEnv(t, "badrow")
	good, bad := e.create(shopA), e.create(shopA)
	ctx := context.Background()
	conn, err := e.sqlDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	id, _ := strconv.ParseInt(bad.ID, 10, 64)
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = ''"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "UPDATE coupon_template SET valid_start_time = '0000-00-00 00:00:00' WHERE id = ?", id); err != nil {
		t.Fatal(err)
	}
	r := e.do(e.token(shopA), `{ couponTemplates(first: 10) { totalCount edges { node { id validStartTime validEndTime } } } }`, nil)
	var page struct {
		TotalCount int `json:"totalCount"`
		Edges      []struct {
			Node struct{ ID, ValidStartTime string }
		}
	}
	if err := json.Unmarshal(r.Data["couponTemplates"], &page); err != nil || len(page.Edges) != 2 {
		t.Fatalf("page with one bad row: %s %+v", r.Data["couponTemplates"], r.Errors)
	}
	starts := map[string]string{}
	for _, edge := range page.Edges {
		starts[edge.Node.ID] = edge.Node.ValidStartTime
	}
	if starts[bad.ID] != "0001-01-01T00:00:00Z" || starts[good.ID] == "" || starts[good.ID] == starts[bad.ID] {
		t.Fatalf("validStartTime per template: %v", starts)
	}
}

// dialWS opens a graphql-transport-ws socket to e and sends connection_init with payload.
func (e *env) dialWS(payload map[string]any) (*websocket.Conn, context.Context) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	e.t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, strings.Replace(e.srv.URL, "http", "ws", 1), &websocket.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.CloseNow() })
	init, _ := json.Marshal(map[string]any{"type": "connection_init", "payload": payload})
	if err := c.Write(ctx, websocket.MessageText, init); err != nil {
		e.t.Fatal(err)
	}
	return c, ctx
}

// closeCode reads until the server closes c and returns the close status.
func closeCode(ctx context.Context, c *websocket.Conn) websocket.StatusCode {
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return websocket.CloseStatus(err)
		}
	}
}

func TestWebsocketRefusalsAndLimits(t *testing.T) {
	e := newEnv(t, "websocket")
	foreign, _ := auth.NewSigner("other").Issue(user, time.Hour)
	for name, c := range map[string]struct {
		payload map[string]any
		want    websocket.StatusCode
	}{
		"a bad token":             {map[string]any{"Authorization": "Bearer nope"}, wsCloseUnauthorized},
		"a token of another key":  {map[string]any{"authToken": "Bearer " + foreign}, wsCloseUnauthorized},
		"a token that is no text": {map[string]any{"Authorization": 42}, wsCloseBadRequest},
	} {
		conn, ctx := e.dialWS(c.payload)
		if got := closeCode(ctx, conn); got != c.want {
			t.Errorf("%s: closed with %d, want %d", name, got, c.want)
		}
	}

	conn, ctx := e.dialWS(map[string]any{"Authorization": "Bearer " + e.token(user)})
	_, ack, err := conn.Read(ctx)
	if err != nil || string(ack) != `{"type":"connection_ack"}` {
		t.Fatalf("ack = %s, %v; want one without a payload", ack, err)
	}
	big, _ := json.Marshal(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{
		"query": "{ __typename }", "variables": map[string]any{"x": strings.Repeat("x", defaultMaxBodyBytes)}}})
	conn.Write(ctx, websocket.MessageText, big)
	if got := closeCode(ctx, conn); got != websocket.StatusMessageTooBig {
		t.Fatalf("a message over the limit: closed with %d, want %d", got, websocket.StatusMessageTooBig)
	}
}

func TestParseAndValidationErrorStatuses(t *testing.T) {
	e := newEnv(t, "statuses")
	for _, c := range []struct {
		accept, query string
		status        int
	}{
		{"application/json", "{ __typename", 200},
		{"*/*", "{ nope }", 200}, // what Apollo Client 3 sends
		{"application/graphql-response+json", "{ __typename", 400},
		{"application/graphql-response+json", "{ nope }", 400},
	} {
		r := e.post("application/json", c.accept, `{"query": "`+c.query+`"}`, "")
		if r.status != c.status || len(r.body.Errors) == 0 {
			t.Errorf("Accept %s, %q: %d %s; want %d", c.accept, c.query, r.status, r.raw, c.status)
		}
		everyErrorCoded(t, &r.body)
		if c.status == 400 && strings.Contains(r.raw, `"data"`) {
			t.Errorf("Accept %s, %q: a data entry in %s", c.accept, c.query, r.raw)
		}
	}
}
