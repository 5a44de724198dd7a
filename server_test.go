package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"coupond/auth"
	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/testutil"

	"github.com/hibiken/asynq"
)

// testApp wires the whole service against a fresh database, the way `coupond serve` does; tweaks
// change the loaded config first.
func testApp(t *testing.T, tweaks ...func(*config)) (*app, *httptest.Server) {
	t.Helper()
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.MySQLDSN = testutil.FreshDatabase(t, "main")
	cfg.RedisAddr, cfg.QueueRedisAddr = testutil.RedisAddr(), testutil.RedisAddr()
	testutil.Redis(t, "main") // empties the namespace
	cfg.RedisDB, cfg.QueueRedisDB, cfg.RedisNamespace = 0, 0, keys.Namespace()
	cfg.RedisClusterAddrs = testutil.RedisCluster()
	cfg.MonitorUser, cfg.MonitorPassword = "ops", "s3cret"
	cfg.BlobURL = "file://" + t.TempDir()
	for _, tweak := range tweaks {
		tweak(&cfg)
	}
	a, err := newApp(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	srv := httptest.NewServer(a.routes())
	t.Cleanup(srv.Close)
	return a, srv
}

func get(t *testing.T, url string, setup func(*http.Request)) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if setup != nil {
		setup(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServerRoutes(t *testing.T) {
	a, srv := testApp(t)
	if code, body := get(t, srv.URL+"/", nil); code != 200 || !strings.Contains(body, "/query") {
		t.Fatalf("playground: %d %.200s", code, body)
	}
	if code, body := get(t, srv.URL+"/healthz", nil); code != 200 {
		t.Fatalf("healthz: %d %s", code, body)
	}
	if code, body := get(t, srv.URL+"/readyz", nil); code != 200 || !strings.Contains(body, `"mysql":"ok"`) {
		t.Fatalf("readyz: %d %s", code, body)
	}
	if code, _ := get(t, srv.URL+"/metrics", nil); code != 404 {
		t.Fatalf("/metrics on the API listener: %d, want 404 (it has its own listener)", code)
	}
	if code, body := get(t, srv.URL+"/query?query="+strings.ReplaceAll("{ __schema { queryType { name } } }", " ", "%20"), nil); code != 200 || !strings.Contains(body, `"Query"`) {
		t.Fatalf("introspection over GET: %d %s", code, body)
	}

	tok := func(r coupon.Role) string {
		s, _ := a.signer.Issue(coupon.Actor{UserID: 1, Role: r, Shop: 1001}, time.Hour)
		return s
	}
	mon := srv.URL + "/monitoring/api/queues"
	for name, c := range map[string]struct {
		setup func(*http.Request)
		want  int
	}{
		"no credentials": {nil, 401},
		"wrong password": {func(r *http.Request) { r.SetBasicAuth("ops", "nope") }, 401},
		"USER token":     {func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok(coupon.RoleUser)) }, 401},
		"MERCHANT token": {func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok(coupon.RoleMerchant)) }, 401},
		"basic auth":     {func(r *http.Request) { r.SetBasicAuth("ops", "s3cret") }, 200},
		"PLATFORM token": {func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok(coupon.RolePlatform)) }, 200},
		"foreign PLATFORM": {func(r *http.Request) {
			s, _ := auth.NewSigner("other").Issue(coupon.Actor{UserID: 1, Role: coupon.RolePlatform}, time.Hour)
			r.Header.Set("Authorization", "Bearer "+s)
		}, 401},
	} {
		if code, body := get(t, mon, c.setup); code != c.want {
			t.Errorf("/monitoring with %s: %d, want %d (%.200s)", name, code, c.want, body)
		}
	}
	if code, body := get(t, srv.URL+"/monitoring/", func(r *http.Request) { r.SetBasicAuth("ops", "s3cret") }); code != 200 || !strings.Contains(body, "<html") {
		t.Fatalf("asynqmon page: %d %.200s", code, body)
	}
}

func TestReadyzFailsWhenRedisIsGone(t *testing.T) {
	a, srv := testApp(t)
	a.rdb.Close()
	if code, body := get(t, srv.URL+"/readyz", nil); code != 503 || !strings.Contains(body, `"redis":"unavailable"`) {
		t.Fatalf("readyz: %d %s", code, body)
	}
}

func TestDemoSeedIsIdempotent(t *testing.T) {
	a, _ := testApp(t)
	ctx := context.Background()
	for range 2 {
		if err := a.seedDemo(ctx); err != nil {
			t.Fatal(err)
		}
	}
	page, err := a.svc.Templates.List(ctx, demoMerchant, template.Filter{}, coupon.Keyset{Size: 10})
	if err != nil || page.Total != 1 {
		t.Fatalf("demo templates = %+v, %v; want exactly 1", page, err)
	}
}

func TestTokenCommand(t *testing.T) {
	cfg, _ := loadConfig()
	if err := printToken(cfg, []string{"--role", "MERCHANT", "--sub", "1"}); err == nil {
		t.Fatal("a merchant token without --shop must be refused")
	}
	if err := printToken(cfg, []string{"--role", "MERCHANT", "--sub", "1", "--shop", "1001"}); err != nil {
		t.Fatal(err)
	}
	if err := printToken(cfg, []string{"--role", "SERVICE", "--sub", "orders"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"--role", "SERVICE", "--sub", "42"}, {"--role", "USER", "--sub", "orders"}} {
		if err := printToken(cfg, bad); err == nil {
			t.Fatalf("token %v was issued", bad)
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

func TestReadmeConfigTable(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), configMarkdown()) {
		t.Errorf("README.md's configuration table is not the one config.go's settings make; put this in:\n%s", configMarkdown())
	}
}

func TestConfigFromEnvironment(t *testing.T) {
	t.Setenv("COUPON_REDEEM_MODE", "sync")
	t.Setenv("COUPON_REDEEM_HOT_TEMPLATES", "123=200000, 456=80000")
	t.Setenv("COUPON_REDEEM_USER_RATE", "0")
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Redeem.Mode != claim.ModeSync || cfg.Redeem.UserRate != 0 ||
		cfg.Redeem.HotTemplateRates[123] != 200000 || cfg.Redeem.HotTemplateRates[456] != 80000 {
		t.Fatalf("redeem config = %+v", cfg.Redeem)
	}
	for k, v := range map[string]string{
		"COUPON_REDEEM_MODE":          "fast",
		"COUPON_REDEEM_HOT_TEMPLATES": "123:5",
		"COUPON_DRAIN_EVERY":          "soon",
		"COUPON_MYSQL_MAX_CONNS":      "many",
	} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, v)
			if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), k) {
				t.Fatalf("%s=%q: err = %v, want one naming the variable", k, v, err)
			}
		})
	}
	t.Setenv("COUPON_ENV", "prod")
	if _, err := loadConfig(); err == nil {
		t.Fatal("prod with the dev JWT secret and monitor password must be refused")
	}
}

// A Redis Cluster has only database 0, and a namespace with a brace would change the templates'
// hash tags: both are refused with the variable named; the cluster's seed nodes are read.
func TestConfigRedisCluster(t *testing.T) {
	t.Setenv("COUPON_REDIS_CLUSTER_ADDRS", "127.0.0.1:7000, 127.0.0.1:7001")
	t.Setenv("COUPON_QUEUE_REDIS_CLUSTER_ADDRS", "127.0.0.1:7100")
	t.Setenv("COUPON_QUEUE_REDIS_DB", "0")
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.RedisClusterAddrs, []string{"127.0.0.1:7000", "127.0.0.1:7001"}) {
		t.Fatalf("cluster addrs = %q", cfg.RedisClusterAddrs)
	}
	if o, ok := queueConnOpt(cfg).(asynq.RedisClusterClientOpt); !ok || !slices.Equal(o.Addrs, []string{"127.0.0.1:7100"}) {
		t.Fatalf("queue connection = %#v, want the queue cluster", queueConnOpt(cfg))
	}
	for k, v := range map[string]string{
		"COUPON_REDIS_DB":            "2",
		"COUPON_REDIS_NAMESPACE":     "a{b}",
		"COUPON_QUEUE_REDIS_DB":      "1",
		"COUPON_REDIS_CLUSTER_ADDRS": "127.0.0.1",
	} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, v)
			if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), k) {
				t.Fatalf("%s=%q on a cluster: err = %v, want one naming the variable", k, v, err)
			}
		})
	}
}
