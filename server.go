// Command coupond is the coupon service: a GraphQL API with its asynq worker.
//
//	coupond serve [--mode all|api|worker] [--demo]   run (migrates first)
//	coupond migrate                                   apply migrations and exit
//	coupond migrate --print-ddl --keyspace NAME       print the DDL of a Vitess keyspace's tables
//	coupond token --role MERCHANT --sub 1 --shop 1001 print a bearer token
//
// Configuration comes from COUPON_* environment variables (see config.go and the README).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"

	"coupond/auth"
	"coupond/coupon"
	"coupond/coupon/reconcile"
	"coupond/graph"

	"github.com/prometheus/client_golang/prometheus"
)

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "coupond:", err)
		os.Exit(1)
	}
}

// defaultGCPercent is the GOGC the process runs with when the environment does not set GOGC. The
// claim path allocates ~24 KB per request on a live heap of a few tens of MB, so at Go's default
// of 100 the collector ran several times a second and its mark workers took ~9 % of coupond's CPU
// in the bench profile; at 400 the heap may grow to five times the live data between cycles
// (GOMEMLIMIT, when set, still caps it) for a quarter of the collections.
const defaultGCPercent = 400

// workerGCPercent is the GOGC of `serve --mode worker` when the environment does not set GOGC: Go's
// own default. The worker's allocations are mostly excelize decoding a distribution's sheet; at 400
// its heap grew to several times the live data (tens of MB): a 200,000-row file peaked at 145–155 MB
// of RSS, at 100 at 96–100 MB (bench/distribution, quiet, 2026-12-06). A 1,000,000-row file still
// peaked at 234 MB once at 100 (125 MB at 400 in the next run): its peak has another cause too.
const workerGCPercent = 100

func run(args []string) error {
	if len(args) == 0 {
		args = []string{"serve"}
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	switch args[0] {
	case "serve":
		return serve(cfg, args[1:])
	case "migrate":
		return migrate(cfg, args[1:], os.Stdout)
	case "token":
		return printToken(cfg, args[1:])
	case "stats-rebuild":
		return queueStatsRebuild(cfg, args[1:])
	case "help", "-h", "--help":
		if len(args) > 1 && args[1] == "--markdown" {
			fmt.Print(configMarkdown()) // the README's configuration table
			return nil
		}
		usage()
		return nil
	}
	usage()
	return fmt.Errorf("unknown command %q", args[0])
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: coupond serve [--mode all|api|worker] [--demo] | migrate [--print-ddl --keyspace NAME] | token --role R --sub N|NAME [--shop N] | stats-rebuild <templateId>")
	fmt.Fprintln(os.Stderr, "\nenvironment:")
	for _, v := range settings {
		fmt.Fprintf(os.Stderr, "  %-26s %-36s %s\n", v.env, v.def, v.meaning)
	}
}

// printToken implements `coupond token`.
func printToken(cfg config, args []string) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	role := fs.String("role", "USER", "USER, MERCHANT, PLATFORM or SERVICE")
	sub := fs.String("sub", "1", "user id (a SERVICE: the service's name, e.g. orders)")
	shop := fs.Int64("shop", 0, "shop number (merchants)")
	ttl := fs.Duration("ttl", cfg.JWTMaxTTL, "validity (at most COUPON_JWT_MAX_TTL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	signer := auth.NewSigner(cfg.JWTSecret, auth.MaxTTL(cfg.JWTMaxTTL))
	actor := coupon.Actor{Role: coupon.Role(*role), Shop: *shop}
	if actor.Role == coupon.RoleService {
		actor.Service = *sub
	} else if id, err := strconv.ParseInt(*sub, 10, 64); err == nil {
		actor.UserID = id
	} else {
		return fmt.Errorf("--sub %q: a %s token's sub is a user id", *sub, *role)
	}
	tok, err := signer.Issue(actor, *ttl)
	if err != nil {
		return fmt.Errorf("--ttl: %w (COUPON_JWT_MAX_TTL)", err)
	}
	if _, err := signer.Parse(tok); err != nil {
		return err // e.g. a merchant without --shop, a service name that is not one
	}
	fmt.Println(tok)
	return nil
}

// startAPI serves the HTTP surface on COUPON_HTTP_ADDR (a listener failure goes to errc) and runs
// the redeemer's background loops until ctx ends: the kicker, which hands accepted claims to the
// persister (in sync mode the unfinished ones), and the watch that repairs what a Redis restart loses.
func (a *app) startAPI(ctx context.Context, errc chan<- error) *http.Server {
	srv := a.httpServer()
	go func() {
		slog.Info("serving", "addr", a.cfg.HTTPAddr, "playground", localURL(a.cfg.HTTPAddr)+"/")
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	go a.svc.Redeemer.Run(ctx)
	go a.svc.Redeemer.WatchLosses(ctx)
	return srv
}

// httpServer is the API's server on COUPON_HTTP_ADDR: its routes behind the minimum body rate,
// and connection limits against clients that hold a connection without sending (headers within
// COUPON_HTTP_READ_HEADER_TIMEOUT, an idle keep-alive connection closed after
// COUPON_HTTP_IDLE_TIMEOUT). There is no overall read or write timeout: uploads are long at low
// rates and subscriptions last.
func (a *app) httpServer() *http.Server {
	return &http.Server{
		Addr:              a.cfg.HTTPAddr,
		Handler:           graph.MinBodyRate(a.routes(), int64(a.cfg.MinBodyRate), a.cfg.BodyGrace),
		ReadHeaderTimeout: a.cfg.ReadHeaderTimeout,
		IdleTimeout:       a.cfg.IdleTimeout,
	}
}

// serve implements `coupond serve`.
func serve(cfg config, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	mode := fs.String("mode", "all", "all (API and worker), api, or worker")
	demo := fs.Bool("demo", false, "seed a demo shop and template and print demo tokens")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *mode != "all" && *mode != "api" && *mode != "worker" {
		return fmt.Errorf("--mode %q: want all, api or worker", *mode)
	}
	if *demo && cfg.Env == "prod" {
		return errDemoInProd
	}
	if *mode == "worker" && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(workerGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := startPprof(cfg.PprofAddr); err != nil {
		return err
	}
	metricsSrv, err := startMetrics(cfg.MetricsAddr)
	if err != nil {
		return err
	}
	a, err := newApp(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.close()
	prometheus.MustRegister(reconcile.NewCollector(a.rdb, cfg.MetricsTopTemplates)) // once: serve runs once per process
	if *demo {
		if err := a.seedDemo(ctx); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
	}

	errc := make(chan error, 2)
	var httpSrv *http.Server
	if *mode != "worker" {
		httpSrv = a.startAPI(ctx, errc)
	}
	var w *worker
	if *mode != "api" {
		if w, err = a.startWorker(); err != nil {
			return err
		}
		defer w.stop()
	}

	select {
	case <-ctx.Done():
		slog.Info("shutting down")
	case err := <-errc:
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if httpSrv != nil {
		if err := httpSrv.Shutdown(sctx); err != nil {
			slog.Error("http shutdown", "err", err)
		}
	}
	if metricsSrv != nil {
		metricsSrv.Close()
	}
	return nil
}
