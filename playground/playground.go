// Package playground serves GraphiQL from the binary: the page, its start script and GraphiQL's
// and React's bundles (copied from npm by build.sh into static/) are embedded, so the playground
// works without internet access.
package playground

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// AssetPrefix is the path under which the page's scripts and styles are served.
const AssetPrefix = "/playground/"

//go:embed index.html
var pageHTML string

//go:embed start.js static
var assetFS embed.FS

var pageTemplate = template.Must(template.New("index.html").Parse(pageHTML))

// csp lets the page load only what this server serves: scripts and styles from here (GraphiQL
// injects style elements, hence 'unsafe-inline' for styles only; its fonts and icons are data:
// URIs) and requests to this origin.
const csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// asset is one embedded file with its strong validator.
type asset struct {
	body []byte
	etag string
}

// Handler serves the playground page at "/" (any path outside AssetPrefix) for the GraphQL
// endpoint at endpoint, and the embedded assets under AssetPrefix; an unknown asset is 404.
// Assets carry an ETag and are revalidated on each load (answered 304 when unchanged).
func Handler(title, endpoint string) http.Handler {
	var page bytes.Buffer
	if err := pageTemplate.Execute(&page, struct{ Title, Endpoint, Assets string }{title, endpoint, AssetPrefix}); err != nil {
		panic(err) // the template and its data are fixed: a failure is a programming error
	}
	assets := loadAssets()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		name, isAsset := strings.CutPrefix(r.URL.Path, AssetPrefix)
		if !isAsset {
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("Content-Security-Policy", csp)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Cache-Control", "no-cache")
			w.Write(page.Bytes())
			return
		}
		a, ok := assets[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h.Set("ETag", a.etag)
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.body))
	})
}

// loadAssets reads the embedded start script and static files, keyed by their name under
// AssetPrefix.
func loadAssets() map[string]asset {
	assets := map[string]asset{}
	err := fs.WalkDir(assetFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assetFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		assets[path.Base(p)] = asset{body: b, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	if err != nil {
		panic(err) // embedded files are always readable
	}
	return assets
}
