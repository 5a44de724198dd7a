// Package admin serves the web admin (the React app built by admin/web/build.sh into
// admin/web/dist, committed, and embedded here) at Prefix: a clean clone builds and serves it
// without node.
package admin

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

// Prefix is where the app is served; the build's asset URLs are under it.
const Prefix = "/admin/"

//go:embed all:web/dist
var dist embed.FS

// csp lets the app load and call only this origin: scripts, styles, fonts and images from here
// (Mantine writes inline styles; images and fonts may be data: URIs), GraphQL and its websocket
// (CSP's 'self' matches the same origin's ws: and wss:), no framing.
const csp = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'none'"

// immutable is the caching of the build's content-hashed assets (assets/).
const immutable = "public, max-age=31536000, immutable"

// file is one file of the build, read and, when compressible and smaller so, gzipped once.
type file struct {
	body, gz []byte
	ctype    string
	etag     string
}

// Handler serves the embedded build.
func Handler() http.Handler {
	sub, err := fs.Sub(dist, "web/dist")
	if err != nil {
		panic(err) // the embed pattern fixes the directory: a failure is a programming error
	}
	return newHandler(sub)
}

// newHandler serves the build in fsys (index.html at its root) at Prefix: "/admin" redirects to
// Prefix; a path whose last segment has no extension is a client route and answers index.html; a
// path with an extension answers that file of the build, or 404. index.html and files outside
// assets/ are revalidated on each load (no-cache, ETag); files under assets/ (content-hashed
// names) are cached for a year as immutable. Compressible files are sent gzipped to a client
// that accepts it. Every answer carries the CSP, nosniff and DENY framing.
func newHandler(fsys fs.FS) http.Handler {
	files := load(fsys)
	index := files["index.html"]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		rel, ok := strings.CutPrefix(r.URL.Path, Prefix)
		if !ok {
			target := Prefix
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, target, http.StatusMovedPermanently)
			return
		}
		f, cache := index, "no-cache"
		if path.Ext(rel) != "" {
			if f = files[rel]; f == nil {
				http.Error(w, "404 page not found", http.StatusNotFound)
				return
			}
			if strings.HasPrefix(rel, "assets/") {
				cache = immutable
			}
		}
		if f == nil {
			http.Error(w, "the web admin is not built (admin/web/build.sh)", http.StatusNotFound)
			return
		}
		f.serve(w, r, cache)
	})
}

// serve writes f with its validator and caching, gzipped when the client accepts it.
func (f *file) serve(w http.ResponseWriter, r *http.Request, cache string) {
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Cache-Control", cache)
	body, etag := f.body, f.etag
	if f.gz != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, etag = f.gz, strings.TrimSuffix(f.etag, `"`)+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(body)
}

// acceptsGzip reports whether an Accept-Encoding header accepts gzip (listed, not with q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// load reads every file of fsys (slash-separated paths relative to its root).
func load(fsys fs.FS) map[string]*file {
	files := map[string]*file{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		f := &file{body: body, ctype: contentType(p), etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
		if compressible(f.ctype) {
			if gz := gzipped(body); len(gz) < len(body) {
				f.gz = gz
			}
		}
		files[p] = f
		return nil
	})
	if err != nil {
		panic(err) // an embedded file system does not fail to read
	}
	return files
}

// contentType is the type served for a file named p.
func contentType(p string) string {
	switch ext := path.Ext(p); ext {
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".html":
		return "text/html; charset=utf-8"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
		return "application/octet-stream"
	}
}

// compressible reports whether gzip is worth trying on a type (text, scripts, JSON, SVG).
func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "javascript") ||
		strings.Contains(ctype, "json") || strings.Contains(ctype, "svg") || strings.Contains(ctype, "wasm")
}

// gzipped is body compressed at the best level.
func gzipped(body []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(body)
	zw.Close()
	return b.Bytes()
}
