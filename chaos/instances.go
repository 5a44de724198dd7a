package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// proc is one child process the runner started, in its own process group so that kill -9 reaches
// all of it and nothing outlives the runner.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

// startProc starts bin with args and env (added to the runner's own), output appended to logPath.
func startProc(name, logPath string, env []string, bin string, args ...string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL} // Pdeathsig: nothing outlives a killed runner
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// kill9 sends SIGKILL to the process group and waits until the process is gone. Safe to call twice.
func (p *proc) kill9() {
	if p == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGCONT) // a stopped process dies only once resumed on some kernels
	<-p.done
}

// signal sends sig to the process itself (SIGSTOP / SIGCONT for a stall).
func (p *proc) signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// alive reports whether the process has not exited.
func (p *proc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// freePort returns the first port in [from, to] nobody listens on at 127.0.0.1.
func freePort(from, to int) (int, error) {
	for port := from; port <= to; port++ {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			l.Close()
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free port in %d-%d", from, to)
}

// anyPort returns a free ephemeral port on 127.0.0.1.
func anyPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitFor polls ok every 50 ms until it returns nil or timeout passes (its last error then).
func waitFor(ctx context.Context, timeout time.Duration, ok func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := ok()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// mariadb is the scenario's own MariaDB server: data in dir, listening on port.
type mariadb struct {
	dir  string
	port int
	p    *proc
	db   *sql.DB // the runner's own connection pool, for the books
}

// installMariaDB initialises an empty data directory once per run; scenarios copy it.
func installMariaDB(dir string) error {
	out, err := exec.Command("mariadb-install-db", "--no-defaults", "--user=root", "--datadir="+dir,
		"--skip-test-db", "--auth-root-authentication-method=normal").CombinedOutput()
	if err != nil {
		return fmt.Errorf("mariadb-install-db: %v: %s", err, tail(out))
	}
	return nil
}

// newMariaDB copies the pristine data directory into dir and starts a server on a free port in 3330-3339.
func newMariaDB(ctx context.Context, pristine, dir string) (*mariadb, error) {
	if out, err := exec.Command("cp", "-a", pristine, dir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copy datadir: %v: %s", err, out)
	}
	port, err := freePort(3330, 3339)
	if err != nil {
		return nil, err
	}
	m := &mariadb{dir: dir, port: port}
	if err := m.start(ctx); err != nil {
		return nil, err
	}
	m.db, err = sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/?timeout=2s&readTimeout=5s&writeTimeout=5s", port))
	if err != nil {
		return nil, err
	}
	m.db.SetMaxOpenConns(4)
	return m, nil
}

// dsn is coupond's COUPON_MYSQL_DSN.
func (m *mariadb) dsn() string { return fmt.Sprintf("root@tcp(127.0.0.1:%d)/coupond", m.port) }

// start runs mariadbd on the data directory (after a kill -9: InnoDB crash recovery) and waits until it answers.
func (m *mariadb) start(ctx context.Context) error {
	p, err := startProc("mariadbd", m.dir+".log", nil, "mariadbd", "--no-defaults", "--user=root",
		"--datadir="+m.dir, "--port="+strconv.Itoa(m.port), "--socket="+m.dir+"/sock",
		"--pid-file="+m.dir+"/pid", "--bind-address=127.0.0.1", "--skip-grant-tables", "--skip-log-bin",
		"--innodb-buffer-pool-size=64M", "--max-connections=200")
	if err != nil {
		return err
	}
	m.p = p
	probe, err := sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/?timeout=1s", m.port))
	if err != nil {
		return err
	}
	defer probe.Close()
	return waitFor(ctx, 60*time.Second, func() error {
		if !p.alive() {
			return errors.New("mariadbd exited; see " + m.dir + ".log")
		}
		return probe.PingContext(ctx)
	})
}

func (m *mariadb) process() *proc { return m.p }

// close stops the server and the runner's pool.
func (m *mariadb) close() {
	if m == nil {
		return
	}
	if m.db != nil {
		m.db.Close()
	}
	m.p.kill9()
}

// redisServer is the scenario's own Redis: AOF in dir, listening on port.
type redisServer struct {
	dir   string
	port  int
	fsync string // appendfsync: everysec or always
	p     *proc
	rdb   *redis.Client // db 0: coupond's data
}

// newRedis starts redis-server with AOF on a free port in 6390-6399.
func newRedis(ctx context.Context, dir, fsync string) (*redisServer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	port, err := freePort(6390, 6399)
	if err != nil {
		return nil, err
	}
	r := &redisServer{dir: dir, port: port, fsync: fsync}
	r.rdb = redis.NewClient(&redis.Options{Addr: r.addr(), MaxRetries: -1, DialTimeout: time.Second,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
	return r, r.start(ctx)
}

func (r *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

// aofDir is where Redis 7 keeps its multi-part AOF (base + incr files + manifest).
func (r *redisServer) aofDir() string { return filepath.Join(r.dir, "appendonlydir") }

// start runs redis-server (loading the AOF when there is one) and waits until it answers PING.
// Automatic AOF rewrites are off so that the AOF directory only grows during a scenario.
func (r *redisServer) start(ctx context.Context) error {
	p, err := startProc("redis-server", r.dir+".log", nil, "redis-server",
		"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--dir", r.dir,
		"--appendonly", "yes", "--appendfsync", r.fsync, "--auto-aof-rewrite-percentage", "0",
		"--save", "", "--daemonize", "no")
	if err != nil {
		return err
	}
	r.p = p
	return waitFor(ctx, 30*time.Second, func() error {
		if !p.alive() {
			return errors.New("redis-server exited; see " + r.dir + ".log")
		}
		return r.rdb.Ping(ctx).Err()
	})
}

func (r *redisServer) process() *proc { return r.p }

func (r *redisServer) close() {
	if r == nil {
		return
	}
	r.rdb.Close()
	r.p.kill9()
}

// server is one coupond serve process.
type server struct {
	bin, log string
	env      []string
	url      string
	metrics  string // base URL of the /metrics listener (COUPON_METRICS_ADDR), tried before url
	p        *proc
}

// startServer runs `coupond serve` with env and waits until /readyz answers 200.
func startServer(ctx context.Context, bin, log string, env []string, httpPort, metricsPort int) (*server, error) {
	s := &server{bin: bin, log: log, env: env, url: fmt.Sprintf("http://127.0.0.1:%d", httpPort),
		metrics: fmt.Sprintf("http://127.0.0.1:%d", metricsPort)}
	return s, s.start(ctx)
}

func (s *server) start(ctx context.Context) error {
	p, err := startProc("coupond", s.log, s.env, s.bin, "serve")
	if err != nil {
		return err
	}
	s.p = p
	hc := &http.Client{Timeout: time.Second}
	return waitFor(ctx, 60*time.Second, func() error {
		if !p.alive() {
			return errors.New("coupond exited; see " + s.log)
		}
		resp, err := hc.Get(s.url + "/readyz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz: %s", resp.Status)
		}
		return nil
	})
}

func (s *server) process() *proc { return s.p }

func (s *server) close() {
	if s != nil {
		s.p.kill9()
	}
}

// buildCoupond builds the binary from the repository root into dir.
func buildCoupond(root, dir string) (string, error) {
	bin := filepath.Join(dir, "coupond")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v: %s", err, tail(out))
	}
	return bin, nil
}

// repoRoot walks up from the working directory to the directory holding coupond's go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && len(b) > 14 && string(b[:14]) == "module coupond" {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("coupond's go.mod not found above the working directory")
		}
		dir = parent
	}
}

// tokens issues bearer tokens with `coupond token`, four processes at a time.
func tokens(bin string, env []string, args [][]string) ([]string, error) {
	out := make([]string, len(args))
	errs := make([]error, len(args))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, a := range args {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			cmd := exec.Command(bin, append([]string{"token"}, a...)...)
			cmd.Env = append(os.Environ(), env...)
			b, err := cmd.Output()
			if err != nil {
				errs[i] = fmt.Errorf("coupond token %v: %w", a, err)
				return
			}
			out[i] = strings.TrimSpace(string(b))
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// tail is the last 2 KB of a command's output, for error messages.
func tail(b []byte) string {
	if len(b) > 2048 {
		b = b[len(b)-2048:]
	}
	return string(b)
}

// countedLoss adds up every /metrics sample whose name contains "lost": the claims the server
// itself reports as lost (e.g. by a start-up check of outboxes against MySQL). 0 when it has none.
// /metrics is read from its own listener, or from the API's (builds before COUPON_METRICS_ADDR).
func (s *server) countedLoss() int {
	for _, base := range []string{s.metrics, s.url} {
		if body, ok := get(base + "/metrics"); ok {
			return sumLost(body)
		}
	}
	return 0
}

// get returns the body of a 200 answer to GET url.
func get(url string) (string, bool) {
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Get(url)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err == nil && resp.StatusCode == http.StatusOK
}

// sumLost adds up the samples of a Prometheus text exposition whose series name contains "lost".
func sumLost(exposition string) int { return sumSeries(exposition, "lost") }

// sumSeries adds up the samples of a Prometheus text exposition whose series name (with its
// labels) contains name.
func sumSeries(exposition, name string) int {
	total := 0.0
	for _, line := range strings.Split(exposition, "\n") {
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || strings.HasPrefix(line, "#") || !strings.Contains(line[:i], name) {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			total += v
		}
	}
	return int(total)
}
