package graph

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// TestWriteResponseAsJSONMarshal: the direct write of a data-only response gives the bytes
// json.Marshal (gqlgen's writer) gives, for every kind of response.
func TestWriteResponseAsJSONMarshal(t *testing.T) {
	yes := true
	for _, resp := range []*graphql.Response{
		{Data: json.RawMessage(`{"redeemCoupon":{"redemption":{"id":"1-2","status":"PENDING"},"userErrors":[]}}`)},
		{Data: json.RawMessage(`{"name":"a<b>&c"}`)},
		{Data: json.RawMessage("{\"name\":\"line\u2028sep\"}")},
		{Data: json.RawMessage("{\"name\":\"para\u2029sep\"}")},
		{Data: json.RawMessage(`{"name":"a>b"}`)},
		{Data: json.RawMessage(`{"name":"a&b"}`)},
		{Data: json.RawMessage("{\"name\":\"caf\u00e9 \u2027 \u202a\"}")},
		{Data: json.RawMessage(`null`)},
		{},
		{Data: json.RawMessage(`{"x":1}`), Errors: gqlerror.List{{Message: "boom", Extensions: map[string]any{"code": "INTERNAL"}}}},
		{Data: json.RawMessage(`{"x":1}`), Extensions: map[string]any{"k": 1}},
		{Data: json.RawMessage(`{"x":1}`), HasNext: &yes, Label: "l"},
	} {
		var got bytes.Buffer
		writeResponse(&got, resp)
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("writeResponse = %s, json.Marshal = %s", got.Bytes(), want)
		}
	}
}

// TestHTMLEscapedAsContainsAny: the byte scans find what bytes.ContainsAny finds.
func TestHTMLEscapedAsContainsAny(t *testing.T) {
	for _, s := range []string{"", "plain", "a<b", "a>b", "a&b", "x\u2028", "\u2029x", "\u2027\u202a\u00e9", "\xe2\x80", "\xe2\x80\xa8"} {
		if got, want := htmlEscaped([]byte(s)), bytes.ContainsAny([]byte(s), "<>&\u2028\u2029"); got != want {
			t.Errorf("htmlEscaped(%q) = %v, ContainsAny %v", s, got, want)
		}
	}
}

// TestDecodePostAsGqlgen: the one-pass decode gives gqlgen's parameters (json.Number variables,
// empty strings for absent names) and leaves every refusal to checkPostParams.
func TestDecodePostAsGqlgen(t *testing.T) {
	p, msg := decodePost([]byte(` {"query":"q","variables":{"n":12345678901234567890,"s":"x"},"extensions":{"e":{}}} `))
	if msg != "" || p.Query != "q" || p.OperationName != "" || p.Variables["n"] != json.Number("12345678901234567890") ||
		p.Variables["s"] != "x" || p.Extensions["e"] == nil {
		t.Fatalf("decodePost = %+v, %q", p, msg)
	}
	for _, body := range []string{``, `[]`, `{"query":1}`, `{"query":"q","operationName":2}`, `{"query":"q","variables":"x"}`,
		`{"query":"q","extensions":[]}`, `{"query":"q"} trailing`, `"q"`, `{"operationName":"x"}`, `{"query":null}`, `{"query":"q"`} {
		p, msg := decodePost([]byte(body))
		if want := checkPostParams([]byte(body)); msg != want || want == "" || p != nil {
			t.Errorf("decodePost(%s) = %v, %q; checkPostParams says %q", body, p, msg, want)
		}
	}
	if p, msg := decodePost([]byte(`{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"ab"}}}`)); msg != "" || p.Query != "" {
		t.Errorf("a persisted-query lookup: %+v, %q", p, msg)
	}
}
