package main

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// prodEnv sets a COUPON_ENV=prod environment that loadConfig accepts.
func prodEnv(t *testing.T) {
	t.Setenv("COUPON_ENV", "prod")
	t.Setenv("COUPON_JWT_SECRET", strings.Repeat("j", 32))
	t.Setenv("COUPON_CODE_KEY", strings.Repeat("c", 32))
	t.Setenv("COUPON_MONITOR_PASSWORD", strings.Repeat("m", 16))
}

// Each weak secret is refused at start-up by a message naming its variable; the dev secrets are
// refused as a whole; a good prod environment starts.
func TestProdRefusesWeakSecrets(t *testing.T) {
	prodEnv(t)
	if _, err := loadConfig(); err != nil {
		t.Fatalf("a good prod environment: %v", err)
	}
	for _, c := range []struct{ env, value, want string }{
		{"COUPON_JWT_SECRET", strings.Repeat("j", 31), "COUPON_JWT_SECRET of at least 32 characters"},
		{"COUPON_CODE_KEY", strings.Repeat("c", 31), "COUPON_CODE_KEY of at least 32 characters"},
		{"COUPON_CODE_KEY", "coupond-dev-secret-change-me", "COUPON_CODE_KEY of at least 32 characters"},
		{"COUPON_MONITOR_PASSWORD", "x", "COUPON_MONITOR_PASSWORD of at least 16 characters"},
		{"COUPON_MONITOR_PASSWORD", "admin", "COUPON_MONITOR_PASSWORD of at least 16 characters"},
		{"COUPON_REMINDER_WEBHOOK_SECRET", "short", "COUPON_REMINDER_WEBHOOK_SECRET of at least 16 characters"},
	} {
		t.Run(c.env+"="+c.value, func(t *testing.T) {
			t.Setenv("COUPON_REMINDER_WEBHOOK_URL", "https://hooks.example.com/reminders")
			t.Setenv("COUPON_REMINDER_WEBHOOK_SECRET", strings.Repeat("w", 16))
			t.Setenv(c.env, c.value)
			if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
	t.Setenv("COUPON_REMINDER_WEBHOOK_SECRET", "short") // only with a webhook URL
	if _, err := loadConfig(); err != nil {
		t.Fatalf("a webhook secret without a URL: %v", err)
	}
}

// serve --demo is refused in prod before anything starts (no database or Redis is touched: the
// DSN points nowhere).
func TestProdRefusesDemo(t *testing.T) {
	prodEnv(t)
	t.Setenv("COUPON_MYSQL_DSN", "root@tcp(127.0.0.1:1)/nowhere")
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve(cfg, []string{"--demo"}); !errors.Is(err, errDemoInProd) {
		t.Fatalf("serve --demo in prod: %v", err)
	}
}

// Dev listens on loopback unless told otherwise, prod on every interface; the playground is on
// in dev and off in prod unless COUPON_PLAYGROUND=on.
func TestEnvDefaults(t *testing.T) {
	for _, c := range []struct {
		prod       bool
		playground string
		addr       string
		served     bool
	}{
		{false, "", "127.0.0.1:8080", true},
		{false, "off", "127.0.0.1:8080", false},
		{true, "", ":8080", false},
		{true, "on", ":8080", true},
	} {
		if c.prod {
			prodEnv(t)
		} else {
			t.Setenv("COUPON_ENV", "dev")
		}
		t.Setenv("COUPON_PLAYGROUND", c.playground)
		cfg, err := loadConfig()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.HTTPAddr != c.addr || cfg.Playground != c.served {
			t.Errorf("prod=%v COUPON_PLAYGROUND=%q: addr %q playground %v, want %q %v", c.prod, c.playground, cfg.HTTPAddr, cfg.Playground, c.addr, c.served)
		}
	}
	t.Setenv("COUPON_PLAYGROUND", "yes")
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "COUPON_PLAYGROUND") {
		t.Fatalf("COUPON_PLAYGROUND=yes: %v", err)
	}
}

// The server as prod runs it: no playground at /, pages that may not be framed, and validation
// errors that suggest no field names (introspection is off).
func TestProdServer(t *testing.T) {
	_, srv := testApp(t, func(c *config) { c.Env, c.Playground = "prod", false })
	if code, _ := get(t, srv.URL+"/", nil); code != http.StatusNotFound {
		t.Errorf("GET / in prod without COUPON_PLAYGROUND=on: %d, want 404", code)
	}
	resp, err := http.Get(srv.URL + "/monitoring/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("/monitoring headers %v", resp.Header)
	}
	resp, err = http.Post(srv.URL+"/query", "application/json", strings.NewReader(`{"query":"{ couponTemplat(id: \"1\") { id } }"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "couponTemplat") || strings.Contains(string(body), "Did you mean") {
		t.Errorf("prod validation error %s: want the unknown field named, no suggestion", body)
	}

	_, dev := testApp(t, func(c *config) { c.Playground = true })
	resp, err = http.Get(dev.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("playground: %d %v", resp.StatusCode, resp.Header)
	}
}
