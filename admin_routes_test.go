package main

import (
	"net/http"
	"strings"
	"testing"
)

// The server serves the embedded web admin: /admin/ and a client route answer its index.html,
// /admin redirects there, a missing asset is 404, and the playground at / is unchanged.
func TestServerServesTheWebAdmin(t *testing.T) {
	_, srv := testApp(t)
	_, index := get(t, srv.URL+"/admin/", nil)
	for _, p := range []string{"/admin/", "/admin/templates/123", "/admin"} {
		if code, body := get(t, srv.URL+p, nil); code != 200 || body != index || !strings.Contains(body, "<html") {
			t.Errorf("%s: %d %.200s", p, code, body)
		}
	}
	if code, _ := get(t, srv.URL+"/admin/assets/missing-000.js", nil); code != http.StatusNotFound {
		t.Errorf("a missing asset: %d, want 404", code)
	}
	if code, body := get(t, srv.URL+"/", nil); code != 200 || body == index {
		t.Errorf("/ is no longer the playground: %d %.100s", code, body)
	}
}
