package main

import "testing"

// The demo's web admin URL is /admin/ with the token in the fragment, unchanged (a JWT is
// URL-safe).
func TestAdminURL(t *testing.T) {
	tok := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-_x"
	if got := adminURL(localURL(":8080"), tok); got != "http://localhost:8080/admin/#token="+tok {
		t.Errorf("adminURL = %q", got)
	}
}
