package admin

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

var (
	testIndex = "<!doctype html><title>t</title><script type=module src=/admin/assets/index-abc123.js></script>"
	testJS    = strings.Repeat("console.log('a compressible bundle');\n", 200)
)

// testBuild is a build as admin/web/build.sh lays it out.
var testBuild = fstest.MapFS{
	"index.html":             {Data: []byte(testIndex)},
	"assets/index-abc123.js": {Data: []byte(testJS)},
	"assets/logo-def456.png": {Data: []byte{0x89, 'P', 'N', 'G'}},
	"robots.txt":             {Data: []byte("User-agent: *\nDisallow: /\n")},
}

// get requests path from h with the given request headers (name, value pairs).
func get(t *testing.T, h http.Handler, path string, headers ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every answer, 404s and redirects included, carries the CSP (only this origin, no framing) and
// nosniff.
func TestSecurityHeaders(t *testing.T) {
	h := newHandler(testBuild)
	for _, p := range []string{"/admin/", "/admin/templates/1", "/admin/assets/index-abc123.js", "/admin/assets/gone.js", "/admin"} {
		r := get(t, h, p)
		csp := r.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "connect-src 'self'", "script-src 'self'", "img-src 'self' data:", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", p, csp, want)
			}
		}
		if strings.Contains(csp, "*") || strings.Contains(csp, "http") {
			t.Errorf("%s: CSP %q allows another origin", p, csp)
		}
		if r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", p, r.Header.Get("X-Content-Type-Options"))
		}
	}
}

// /admin/ and every client route (a path without an extension) answer index.html, revalidated on
// each load.
func TestClientRoutesAnswerIndex(t *testing.T) {
	h := newHandler(testBuild)
	for _, p := range []string{"/admin/", "/admin/templates", "/admin/templates/123/log", "/admin/tasks/9?x=1"} {
		r := get(t, h, p)
		if b := body(t, r); r.StatusCode != 200 || b != testIndex {
			t.Errorf("%s: %d %q", p, r.StatusCode, b)
		}
		if r.Header.Get("Cache-Control") != "no-cache" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: Cache-Control %q, Content-Type %q", p, r.Header.Get("Cache-Control"), r.Header.Get("Content-Type"))
		}
	}
}

// A path with an extension that the build does not hold is 404, never index.html.
func TestMissingAssetIs404(t *testing.T) {
	h := newHandler(testBuild)
	for _, p := range []string{"/admin/assets/index-000000.js", "/admin/favicon.ico", "/admin/templates/app.css", "/admin/assets/"} {
		r := get(t, h, p)
		b := body(t, r)
		if p == "/admin/assets/" { // no extension: a client route
			if r.StatusCode != 200 || b != testIndex {
				t.Errorf("%s: %d %q", p, r.StatusCode, b)
			}
			continue
		}
		if r.StatusCode != http.StatusNotFound || strings.Contains(b, "<script") {
			t.Errorf("%s: %d %q, want 404", p, r.StatusCode, b)
		}
	}
}

// Hashed assets are cached for a year as immutable and sent gzipped to a client that accepts
// gzip (and only then), with Vary: Accept-Encoding; the gzip decodes to the file. A file outside
// assets/ is revalidated (no-cache).
func TestAssetsImmutableAndGzipped(t *testing.T) {
	h := newHandler(testBuild)
	for _, ae := range []string{"gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.8"} {
		r := get(t, h, "/admin/assets/index-abc123.js", "Accept-Encoding", ae)
		if r.StatusCode != 200 || r.Header.Get("Content-Encoding") != "gzip" || r.Header.Get("Vary") != "Accept-Encoding" ||
			r.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			r.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
			t.Fatalf("Accept-Encoding %q: %d %v", ae, r.StatusCode, r.Header)
		}
		raw := body(t, r)
		if len(raw) >= len(testJS)/4 {
			t.Errorf("gzip body %d bytes for %d", len(raw), len(testJS))
		}
		zr, err := gzip.NewReader(bytes.NewReader([]byte(raw)))
		if err != nil {
			t.Fatal(err)
		}
		if plain, _ := io.ReadAll(zr); string(plain) != testJS {
			t.Errorf("gzip decodes to %d bytes, want the file", len(plain))
		}
	}
	for _, ae := range []string{"", "identity", "gzip;q=0", "br"} {
		r := get(t, h, "/admin/assets/index-abc123.js", "Accept-Encoding", ae)
		if b := body(t, r); r.Header.Get("Content-Encoding") != "" || b != testJS || r.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %q: encoding %q, %d bytes", ae, r.Header.Get("Content-Encoding"), len(b))
		}
	}
	png := get(t, h, "/admin/assets/logo-def456.png", "Accept-Encoding", "gzip")
	if png.Header.Get("Content-Encoding") != "" || png.Header.Get("Content-Type") != "image/png" ||
		png.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("png: %v", png.Header)
	}
	robots := get(t, h, "/admin/robots.txt")
	if robots.StatusCode != 200 || robots.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("robots.txt: %d %v", robots.StatusCode, robots.Header)
	}
}

// A revalidation with the current ETag is 304 (index.html, and each encoding of an asset).
func TestRevalidation(t *testing.T) {
	h := newHandler(testBuild)
	for _, c := range []struct{ path, ae string }{{"/admin/", ""}, {"/admin/assets/index-abc123.js", "gzip"}, {"/admin/assets/index-abc123.js", ""}} {
		etag := get(t, h, c.path, "Accept-Encoding", c.ae).Header.Get("ETag")
		if etag == "" {
			t.Fatalf("%s: no ETag", c.path)
		}
		if r := get(t, h, c.path, "Accept-Encoding", c.ae, "If-None-Match", etag); r.StatusCode != http.StatusNotModified {
			t.Errorf("%s (%q) If-None-Match %s: %d", c.path, c.ae, etag, r.StatusCode)
		}
	}
	plain := get(t, h, "/admin/assets/index-abc123.js").Header.Get("ETag")
	if r := get(t, h, "/admin/assets/index-abc123.js", "Accept-Encoding", "gzip", "If-None-Match", plain); r.StatusCode != 200 {
		t.Errorf("the identity ETag validated the gzip body: %d", r.StatusCode)
	}
}

// /admin redirects to /admin/, keeping the query.
func TestNoSlashRedirects(t *testing.T) {
	h := newHandler(testBuild)
	for p, want := range map[string]string{"/admin": "/admin/", "/admin?x=1": "/admin/?x=1"} {
		r := get(t, h, p)
		if r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Location") != want {
			t.Errorf("%s: %d Location %q, want %s", p, r.StatusCode, r.Header.Get("Location"), want)
		}
	}
}

// The embedded build: /admin/ answers its index.html, and every asset the page references is
// served (200, immutable).
func TestEmbeddedBuild(t *testing.T) {
	h := Handler()
	r := get(t, h, "/admin/")
	page := body(t, r)
	if r.StatusCode != 200 || !strings.Contains(page, "<html") {
		t.Fatalf("/admin/: %d %q", r.StatusCode, page)
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="(/admin/assets/[^"]+)"`).FindAllStringSubmatch(page, -1) {
		a := get(t, h, m[1], "Accept-Encoding", "gzip")
		if a.StatusCode != 200 || a.Header.Get("Cache-Control") != immutable {
			t.Errorf("%s: %d %v", m[1], a.StatusCode, a.Header)
		}
	}
}
