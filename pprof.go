package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// startPprof serves net/http/pprof (/debug/pprof/...) on addr (COUPON_PPROF_ADDR), in a
// goroutine, and returns at once; it does nothing when addr is empty. The profiler has its own
// listener and mux, never the API's, and is unauthenticated, so an address that is not loopback
// (e.g. ":6060" or "0.0.0.0:6060") is refused with an error. bench/run.sh -pprof uses it to
// profile the claim path.
func startPprof(addr string) error {
	if addr == "" {
		return nil
	}
	if err := requireLoopback(addr); err != nil {
		return fmt.Errorf("COUPON_PPROF_ADDR: %w", err)
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
	return nil
}

// requireLoopback accepts host:port where host is "localhost" or a loopback IP.
func requireLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port", addr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q is not a loopback address (use 127.0.0.1:PORT or [::1]:PORT): the profiler is unauthenticated", addr)
	}
	return nil
}
