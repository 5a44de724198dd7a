package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// run is what all scenarios of one invocation share: the built binary, a pristine MariaDB data
// directory, and the tokens (all issued by `coupond token` with the runner's JWT secret).
type run struct {
	dir      string // the run's temp dir; removed at the end
	bin      string
	pristine string
	secret   string
	merchant string
	orders   string   // the order system's (SERVICE) token: it confirms payments and refunds
	users    []string // users[u-1] is user u's token
	keep     bool     // keep each scenario's dir (logs, data) for a post-mortem
}

const chaosSecret = "chaos-runner-secret-0123456789abcdef"

// newRun builds coupond, initialises MariaDB once and issues tokens for up to maxUsers users.
func newRun(root string, maxUsers int) (*run, error) {
	dir, err := os.MkdirTemp("", "coupond-chaos-")
	if err != nil {
		return nil, err
	}
	r := &run{dir: dir, secret: chaosSecret, pristine: filepath.Join(dir, "pristine-db")}
	if r.bin, err = buildCoupond(root, dir); err != nil {
		r.close()
		return nil, err
	}
	if err := installMariaDB(r.pristine); err != nil {
		r.close()
		return nil, err
	}
	args := [][]string{{"--role", "MERCHANT", "--sub", "1", "--shop", "1001"}, {"--role", "SERVICE", "--sub", "orders"}}
	for u := 1; u <= maxUsers; u++ {
		args = append(args, []string{"--role", "USER", "--sub", strconv.Itoa(u)})
	}
	toks, err := tokens(r.bin, []string{"COUPON_JWT_SECRET=" + r.secret}, args)
	if err != nil {
		r.close()
		return nil, err
	}
	r.merchant, r.orders, r.users = toks[0], toks[1], toks[2:]
	return r, nil
}

func (r *run) close() { os.RemoveAll(r.dir) }

// world is one scenario's own MariaDB, Redis and coupond, all in dir; with a Redis Cluster of its
// own (rc) for the coupon data, asynq staying on rd.
type world struct {
	dir  string
	my   *mariadb
	rd   *redisServer
	rc   *redisCluster         // nil: coupon data on rd
	data redis.UniversalClient // the coupon data's Redis: rc's client or rd's
	srv  *server
	gql  *gqlClient
	// shards: the stock shards of the scenario's template in a lend scenario (lend_faults.go), nil
	// otherwise (the template's keys are its own).
	shards *stockShards
	// resumedAfter: a failover fault's time from the promotion to the first coupon MySQL wrote
	// after it (-1: none came within quietMax).
	resumedAfter time.Duration
}

// newWorld starts MariaDB, Redis (AOF with fsync), with cluster a Redis Cluster for the coupon
// data, and `coupond serve` in mode, with extra environment variables for the server; close stops
// them all.
func newWorld(ctx context.Context, r *run, name, mode, fsync string, cluster bool, extra ...string) (w *world, err error) {
	dir, err := os.MkdirTemp(r.dir, name+"-")
	if err != nil {
		return nil, err
	}
	w = &world{dir: dir}
	defer func() {
		if err != nil {
			w.close(r.keep)
		}
	}()
	if w.my, err = newMariaDB(ctx, r.pristine, filepath.Join(dir, "db")); err != nil {
		return w, err
	}
	if w.rd, err = newRedis(ctx, filepath.Join(dir, "redis"), fsync); err != nil {
		return w, err
	}
	w.data = w.rd.rdb
	if cluster {
		if w.rc, err = newRedisCluster(ctx, filepath.Join(dir, "cluster")); err != nil {
			return w, err
		}
		w.data = w.rc.rdb
		extra = append(extra, "COUPON_REDIS_CLUSTER_ADDRS="+strings.Join(w.rc.addrs, ","))
	}
	httpPort, err := anyPort()
	if err != nil {
		return w, err
	}
	metricsPort := httpPort
	for metricsPort == httpPort && err == nil {
		metricsPort, err = anyPort()
	}
	if err != nil {
		return w, err
	}
	env := []string{
		"COUPON_ENV=dev",
		"COUPON_MYSQL_DSN=" + w.my.dsn(),
		"COUPON_REDIS_ADDR=" + w.rd.addr(),
		"COUPON_QUEUE_REDIS_ADDR=" + w.rd.addr(),
		"COUPON_HTTP_ADDR=" + fmt.Sprintf("127.0.0.1:%d", httpPort),
		"COUPON_METRICS_ADDR=" + fmt.Sprintf("127.0.0.1:%d", metricsPort), // builds before it serve /metrics on the API port
		"COUPON_JWT_SECRET=" + r.secret,
		"COUPON_REDEEM_MODE=" + mode,
		"COUPON_REDEEM_USER_RATE=0",
		"COUPON_DRAIN_EVERY=1s",
		"COUPON_SHUTDOWN_TIMEOUT=2s",
		"COUPON_WORKER_CONCURRENCY=10",
		"COUPON_REDIS_FSYNC=" + fsync, // read by builds that configure Redis themselves; ignored otherwise
	}
	env = append(env, extra...)
	if w.srv, err = startServer(ctx, r.bin, filepath.Join(dir, "coupond.log"), env, httpPort, metricsPort); err != nil {
		return w, err
	}
	w.gql = newGQLClient(w.srv.url)
	return w, nil
}

// close kills every process of the world and removes its directory unless keep.
func (w *world) close(keep bool) {
	w.srv.close()
	if w.rc != nil {
		w.rc.close()
	}
	w.rd.close()
	w.my.close()
	if !keep {
		os.RemoveAll(w.dir)
	}
}
