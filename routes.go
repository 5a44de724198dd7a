package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"coupond/admin"
	"coupond/auth"
	"coupond/coupon"
	"coupond/graph"
	"coupond/graph/model"
	"coupond/playground"

	"github.com/hibiken/asynqmon"
)

// routes is the HTTP surface: /query, the web admin at /admin/ (admin.Handler), the playground
// at / (when COUPON_PLAYGROUND resolves to on), asynqmon at /monitoring (both never framed by another site), /healthz (the
// process is up) and /readyz (MySQL and Redis answer). /metrics has its own listener (metrics.go).
func (a *app) routes() http.Handler {
	gql := graph.NewHandler(&graph.Resolver{Templates: a.svc.Templates, Redeemer: a.svc.Redeemer, Wallet: a.svc.Wallet, Codes: a.codes,
		Distribution: a.svc.Distribution, Checkout: a.svc.Checkout, Reminders: a.svc.Reminders, Stats: a.svc.Stats, Reconciler: a.svc.Reconciler,
		Settings: model.ServerSettings{StatsTimeZone: a.cfg.StatsZone.String(), StatsMaxDays: a.cfg.StatsMaxDays,
			UploadMaxBytes: int(a.cfg.UploadMaxBytes), RedeemMode: string(a.cfg.Redeem.Mode)}}, graph.HandlerConfig{
		Signer:          a.signer,
		Introspection:   a.cfg.Env != "prod",
		ComplexityLimit: a.cfg.ComplexityLimit,
		DepthLimit:      a.cfg.DepthLimit,
		ExecutorOnly:    a.cfg.ClaimPlans == "off",
		CORSOrigins:     a.cfg.CORSOrigins,
		MaxUpload:       a.cfg.UploadMaxBytes,
	})
	mon := asynqmon.New(asynqmon.Options{RootPath: "/monitoring", RedisConnOpt: a.queueOpt})

	mux := http.NewServeMux()
	mux.Handle("/query", a.signer.Middleware(gql))
	mux.Handle("GET /tasks/{id}/failures.xlsx", a.signer.Middleware(graph.ReportHandler(a.svc.Distribution)))
	if a.cfg.Playground {
		pg := noFraming(playground.Handler("coupond", "/query"))
		mux.Handle("GET /{$}", pg)
		mux.Handle("GET "+playground.AssetPrefix, pg)
	}
	web := admin.Handler()
	mux.Handle("GET "+admin.Prefix, web)
	mux.Handle("GET "+strings.TrimSuffix(admin.Prefix, "/"), web)
	monitoring := noFraming(sameOriginWrites(a.operatorOnly(mon)))
	mux.Handle("/monitoring/", monitoring)
	mux.Handle("/monitoring", monitoring)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", a.ready)
	return mux
}

// operatorOnly admits a PLATFORM bearer token or the operator's basic-auth credentials; anything
// else gets 401 (with a basic-auth challenge, so browsers ask).
func (a *app) operatorOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.isOperator(r) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="coupond monitoring"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	})
}

func (a *app) isOperator(r *http.Request) bool {
	if user, pass, ok := r.BasicAuth(); ok {
		u := subtle.ConstantTimeCompare([]byte(user), []byte(a.cfg.MonitorUser))
		p := subtle.ConstantTimeCompare([]byte(pass), []byte(a.cfg.MonitorPassword))
		return u&p == 1
	}
	if token, ok := auth.BearerToken(r.Header.Get("Authorization")); ok {
		actor, err := a.signer.Parse(token)
		return err == nil && actor.Role == coupon.RolePlatform
	}
	return false
}

// ready answers 200 when MySQL, the data Redis and the queue Redis answer within 2 s, else 503.
func (a *app) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	checks := map[string]string{"mysql": "ok", "redis": "ok", "queue": "ok"}
	status := http.StatusOK
	fail := func(name string, err error) {
		if err != nil {
			slog.WarnContext(ctx, "readiness check failed", "check", name, "err", err)
			checks[name] = "unavailable"
			status = http.StatusServiceUnavailable
		}
	}
	fail("mysql", a.sqlDB.PingContext(ctx))
	fail("redis", a.rdb.Ping(ctx).Err())
	fail("queue", a.qrdb.Ping(ctx).Err())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(checks)
}
