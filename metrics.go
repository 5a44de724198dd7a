package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsHandler serves GET /metrics (Prometheus text format).
func metricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.Handler())
	return mux
}

// startMetrics serves /metrics on its own listener at addr (COUPON_METRICS_ADDR), never on the
// API's: the figures (claim rates, drift, runtime) are for operators, and a scraper on a private
// port needs no credentials in its configuration. It binds before returning, so a taken or
// malformed address fails the start; "off" serves nothing (nil server). The server's Addr is
// the bound address. Every mode starts it:
// the worker records the persister's metrics.
func startMetrics(addr string) (*http.Server, error) {
	if addr == "off" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("COUPON_METRICS_ADDR: %w", err)
	}
	srv := &http.Server{Addr: ln.Addr().String(), Handler: metricsHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		slog.Info("metrics serving", "addr", ln.Addr().String(), "path", "/metrics")
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("metrics server stopped", "addr", addr, "err", err)
		}
	}()
	return srv, nil
}
