package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestMetricsHaveTheirOwnListener(t *testing.T) {
	srv, err := startMetrics("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if code, body := get(t, "http://"+srv.Addr+"/metrics", nil); code != 200 || !strings.Contains(body, "go_goroutines") {
		t.Fatalf("metrics: %d", code)
	}
	if _, err := startMetrics(srv.Addr); err == nil || !strings.Contains(err.Error(), "COUPON_METRICS_ADDR") {
		t.Fatalf("a taken address: err = %v", err)
	}
	if off, err := startMetrics("off"); off != nil || err != nil {
		t.Fatalf("off: %v, %v", off, err)
	}
}

func TestMonitoringRefusesCrossOriginWrites(t *testing.T) {
	_, srv := testApp(t)
	pause := srv.URL + "/monitoring/api/queues/default:pause"
	post := func(headers map[string]string) int {
		req, _ := http.NewRequest(http.MethodPost, pause, nil)
		req.SetBasicAuth("ops", "s3cret") // the browser's cached credentials
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for name, h := range map[string]map[string]string{
		"cross-site fetch metadata": {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
		"same-site, other origin":   {"Sec-Fetch-Site": "same-site", "Origin": "https://other.localhost"},
		"a foreign Origin only":     {"Origin": "https://evil.example"},
	} {
		if code := post(h); code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, code)
		}
	}
	for name, h := range map[string]map[string]string{
		"same-origin (asynqmon's UI)": {"Sec-Fetch-Site": "same-origin", "Origin": srv.URL},
		"no browser headers (curl)":   {},
	} {
		if code := post(h); code == http.StatusForbidden || code == http.StatusUnauthorized {
			t.Errorf("%s: %d, want it let through", name, code)
		}
	}
	if code, _ := get(t, srv.URL+"/monitoring/api/queues", func(r *http.Request) {
		r.SetBasicAuth("ops", "s3cret")
		r.Header.Set("Sec-Fetch-Site", "cross-site")
	}); code != 200 {
		t.Errorf("a cross-site GET (safe): %d", code)
	}
}

func TestPprofNeedsALoopbackAddress(t *testing.T) {
	for _, addr := range []string{":6060", "0.0.0.0:6060", "[::]:6060", "10.1.2.3:6060", "example.com:6060", "6060"} {
		if err := startPprof(addr); err == nil || !strings.Contains(err.Error(), "COUPON_PPROF_ADDR") {
			t.Errorf("COUPON_PPROF_ADDR=%s: err = %v, want a refusal", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:6060", "[::1]:6060", "localhost:6060"} {
		if err := requireLoopback(addr); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
}

func TestTokenCommandRespectsTheMaximumLifetime(t *testing.T) {
	t.Setenv("COUPON_JWT_MAX_TTL", "1h")
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := printToken(cfg, []string{"--role", "USER", "--sub", "1", "--ttl", "2h"}); err == nil || !strings.Contains(err.Error(), "COUPON_JWT_MAX_TTL") {
		t.Fatalf("--ttl 2h over a 1h maximum: err = %v", err)
	}
	if err := printToken(cfg, []string{"--role", "USER", "--sub", "1", "--ttl", "30m"}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("COUPON_JWT_MAX_TTL", "forever")
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "COUPON_JWT_MAX_TTL") {
		t.Fatalf("COUPON_JWT_MAX_TTL=forever: err = %v", err)
	}
}

func TestCORSAllowlist(t *testing.T) {
	for _, bad := range []string{"admin.example.com", "https://a.example/path", "*,https://a.example", "ftp://a.example"} {
		t.Setenv("COUPON_CORS_ORIGINS", bad)
		if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "COUPON_CORS_ORIGINS") {
			t.Errorf("COUPON_CORS_ORIGINS=%q: err = %v", bad, err)
		}
	}
	const admin = "https://admin.example.com"
	t.Setenv("COUPON_CORS_ORIGINS", admin+", http://localhost:3000")
	_, srv := testApp(t)
	preflight := func(origin string) http.Header {
		req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/query", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header
	}
	h := preflight(admin)
	if h.Get("Access-Control-Allow-Origin") != admin || h.Get("Access-Control-Allow-Credentials") != "true" ||
		!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Fatalf("preflight from the admin app: %v", h)
	}
	if h := preflight("https://evil.example"); h.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("preflight from another origin: %v", h)
	}
	ws := func(origin string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, resp, err := websocket.Dial(ctx, strings.Replace(srv.URL, "http", "ws", 1)+"/query", &websocket.DialOptions{
			HTTPHeader: http.Header{"Origin": {origin}}, Subprotocols: []string{"graphql-transport-ws"},
		})
		if err == nil {
			c.CloseNow()
		} else if resp != nil && resp.StatusCode != http.StatusForbidden {
			t.Errorf("websocket from %s: refused with %d, want 403", origin, resp.StatusCode)
		}
		return err
	}
	if err := ws(admin); err != nil {
		t.Fatalf("websocket from the admin app: %v", err)
	}
	if err := ws("https://evil.example"); err == nil {
		t.Fatal("a websocket from another origin was accepted")
	}

	t.Setenv("COUPON_CORS_ORIGINS", "*")
	_, any := testApp(t)
	srv = any
	h = preflight("https://anyone.example")
	if h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("preflight with *: %v (credentials must never be allowed for *)", h)
	}
	if err := ws("https://anyone.example"); err != nil {
		t.Fatalf("websocket with *: %v", err)
	}
}
