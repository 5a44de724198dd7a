package playground

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func serve(t *testing.T, path string, header http.Header) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	Handler("coupond", "/query").ServeHTTP(rec, req)
	resp := rec.Result()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The page loads everything from this server: every src and href is under AssetPrefix, and the
// CSP forbids other origins.
func TestPageLoadsOnlyLocalAssets(t *testing.T) {
	resp, body := serve(t, "/", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if !strings.Contains(body, `name="graphql-endpoint" content="/query"`) {
		t.Fatalf("page does not name the endpoint:\n%s", body)
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(body, -1)
	if len(refs) != 6 {
		t.Fatalf("want 4 scripts, 1 stylesheet and the icon, got %v", refs)
	}
	for _, m := range refs {
		if m[1] == "data:," { // the empty icon: no favicon request
			continue
		}
		if !strings.HasPrefix(m[1], AssetPrefix) {
			t.Errorf("%s is not served by the playground", m[1])
		}
		if r, _ := serve(t, m[1], nil); r.StatusCode != 200 {
			t.Errorf("%s: %d", m[1], r.StatusCode)
		}
	}
	if c := resp.Header.Get("Content-Security-Policy"); !strings.Contains(c, "default-src 'none'") || !strings.Contains(c, "script-src 'self'") {
		t.Errorf("CSP: %q", c)
	}
}

func TestAssetsAreTypedAndRevalidated(t *testing.T) {
	for name, ctype := range map[string]string{
		"graphiql.min.js":  "text/javascript",
		"graphiql.min.css": "text/css",
		"start.js":         "text/javascript",
	} {
		resp, body := serve(t, AssetPrefix+name, nil)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), ctype) || len(body) == 0 {
			t.Fatalf("%s: %d %q, %d bytes", name, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
		etag := resp.Header.Get("ETag")
		again, body := serve(t, AssetPrefix+name, http.Header{"If-None-Match": {etag}})
		if etag == "" || again.StatusCode != http.StatusNotModified || body != "" {
			t.Fatalf("%s with If-None-Match %s: %d, %d bytes", name, etag, again.StatusCode, len(body))
		}
	}
	if resp, _ := serve(t, AssetPrefix+"nope.js", nil); resp.StatusCode != 404 {
		t.Fatalf("unknown asset: %d", resp.StatusCode)
	}
}
