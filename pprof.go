package main

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"
)

// startPprof serves net/http/pprof (/debug/pprof/...) on addr (COUPON_PPROF_ADDR), in a
// goroutine, and returns at once; it does nothing when addr is empty. The
// profiler has its own listener and mux, never the API's: bind it to a loopback address (e.g.
// 127.0.0.1:6060), it is unauthenticated. bench/run.sh -pprof uses it to profile the claim path.
func startPprof(addr string) {
	if addr == "" {
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		slog.Info("pprof serving", "addr", addr, "path", "/debug/pprof/")
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("pprof server stopped", "addr", addr, "err", err)
		}
	}()
}
