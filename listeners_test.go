package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
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

// A body that drips one byte every 2 s is cut with 408 REQUEST_TIMEOUT once it falls behind the
// minimum rate, about COUPON_HTTP_BODY_GRACE (5 s) after its first byte, with the production
// settings: a JSON POST with a Content-Length and a merchant's chunked upload alike.
func TestADrippingBodyIsCut(t *testing.T) {
	a, _ := testApp(t)
	addr := realServer(t, a)
	merchant := shopMerchant(t, a)
	prefix, _, ct := uploadParts("1", "users.csv")
	for _, c := range []struct {
		name  string
		open  func(t *testing.T) net.Conn
		write func(conn net.Conn) error // one byte of the body
	}{
		{"JSON", func(t *testing.T) net.Conn {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
			io.WriteString(conn, "POST /query HTTP/1.1\r\nHost: coupond\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
			return conn
		}, func(conn net.Conn) error { _, err := conn.Write([]byte(" ")); return err }},
		{"chunked upload", func(t *testing.T) net.Conn {
			conn := chunkedUpload(t, addr, merchant, ct)
			if err := writeChunk(conn, prefix); err != nil {
				t.Fatal(err)
			}
			return conn
		}, func(conn net.Conn) error { return writeChunk(conn, []byte("1")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			conn := c.open(t)
			began := time.Now()
			go func() {
				for c.write(conn) == nil {
					time.Sleep(2 * time.Second)
				}
			}()
			conn.SetReadDeadline(time.Now().Add(15 * time.Second))
			status, code := readAnswer(t, conn)
			took := time.Since(began)
			if status != http.StatusRequestTimeout || code != "REQUEST_TIMEOUT" || took < a.cfg.BodyGrace-time.Second || took > a.cfg.BodyGrace+2*time.Second {
				t.Fatalf("answer %d %s after %v; want 408 REQUEST_TIMEOUT after about %v", status, code, took, a.cfg.BodyGrace)
			}
		})
	}
}

// pacedReader yields n bytes of p repeated at rate bytes per second.
type pacedReader struct {
	p       []byte
	n, sent int64
	rate    float64
	start   time.Time
}

func (r *pacedReader) Read(b []byte) (int, error) {
	if r.sent >= r.n {
		return 0, io.EOF
	}
	if r.start.IsZero() {
		r.start = time.Now()
	}
	time.Sleep(time.Until(r.start.Add(time.Duration(float64(r.sent) / r.rate * float64(time.Second)))))
	k := min(int64(len(b)), 64<<10, r.n-r.sent)
	for i := range k {
		b[i] = r.p[(r.sent+i)%int64(len(r.p))]
	}
	r.sent += k
	return int(k), nil
}

// An upload at 1 MB/s passes the minimum body rate with the production settings: 8 MiB here
// (COUPON_TEST_SLOW_UPLOAD_MIB=64 for the full cap, 67 s), answered 200 with a task.
// TestBodyDeadline holds the rule for the whole 64 MiB.
func TestAnUploadAtOneMBPerSecondPasses(t *testing.T) {
	mib := int64(8)
	if v := os.Getenv("COUPON_TEST_SLOW_UPLOAD_MIB"); v != "" {
		fmt.Sscan(v, &mib)
	}
	a, _ := testApp(t)
	addr := realServer(t, a)
	merchant := shopMerchant(t, a)
	tplID := gqlTemplate(t, "http://"+addr, merchant, 100)
	prefix, suffix, ct := uploadParts(fmt.Sprint(tplID), "users.csv")
	var rows bytes.Buffer // 1,000 ids, then a padding column (the file's size, not its rows, is what is paced)
	rows.WriteString("userId,note\n")
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&rows, "%d,\n", i)
	}
	size := mib<<20 - int64(len(prefix)+len(suffix)+rows.Len())
	body := io.MultiReader(bytes.NewReader(prefix), bytes.NewReader(rows.Bytes()),
		&pacedReader{p: []byte(strings.Repeat(" ", 1023) + "\n"), n: size, rate: 1e6}, bytes.NewReader(suffix))
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/query", body)
	req.ContentLength = mib << 20
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Apollo-Require-Preflight", "true")
	req.Header.Set("Authorization", "Bearer "+merchant)
	began := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if resp.StatusCode != 200 || answerCode(out) != "" {
		t.Fatalf("after %v: %d %.300s", time.Since(began), resp.StatusCode, raw)
	}
	t.Logf("%d MiB at 1 MB/s: answered after %v", mib, time.Since(began))
}

// The header timeout and the idle timeout of the production server: a client that sends part
// of its headers, or nothing after a request, is disconnected once its timeout passes (1 s here).
func TestConnectionTimeouts(t *testing.T) {
	a, _ := testApp(t)
	a.cfg.ReadHeaderTimeout, a.cfg.IdleTimeout = time.Second, time.Second
	addr := realServer(t, a)
	for _, c := range []struct{ name, send string }{
		{"headers trickled", "GET /healthz HTTP/1.1\r\nHost: coupond\r\n"},
		{"idle after a request", "GET /healthz HTTP/1.1\r\nHost: coupond\r\n\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			began := time.Now()
			io.WriteString(conn, c.send)
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(conn)
			if strings.HasSuffix(c.send, "\r\n\r\n") {
				resp, err := http.ReadResponse(br, nil)
				if err != nil || resp.StatusCode != 200 {
					t.Fatalf("the request: %v %v", resp, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			_, err = br.ReadByte()
			if took := time.Since(began); err != io.EOF || took < 900*time.Millisecond || took > 2500*time.Millisecond {
				t.Fatalf("after %v: %v; want the connection closed after about 1 s", took, err)
			}
		})
	}
}
