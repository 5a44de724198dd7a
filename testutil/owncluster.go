package testutil

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// OwnCluster is a Redis Cluster of 3 masters and 3 replicas that one test started for itself (on
// ports of its own, data in the test's temp dir), for faults the shared cluster of RedisCluster
// must not see: a replica stopped, a master killed. It is gone when the test ends.
type OwnCluster struct {
	Addrs []string // every node, host:port
	procs map[string]*exec.Cmd
}

// StartOwnCluster starts the nodes (cluster-node-timeout 2000, AOF everysec, noeviction, as
// scripts/services.sh runs the shared one; cluster-replica-validity-factor 0, so that a replica of
// a fresh cluster may fail over), creates the cluster with redis-cli and waits until every master
// has its replica online.
func StartOwnCluster(t testing.TB) *OwnCluster {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("testutil: %s not found (scripts/services.sh --redis-cluster installs it)", bin)
		}
	}
	c := &OwnCluster{procs: map[string]*exec.Cmd{}}
	t.Cleanup(c.stop)
	dir := t.TempDir()
	for _, port := range freeClusterPorts(t, 6) {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		d := filepath.Join(dir, strconv.Itoa(port))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		log, err := os.Create(d + ".log")
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", d,
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
			"--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--maxmemory-policy", "noeviction",
			"--cluster-replica-validity-factor", "0")
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		c.procs[addr] = cmd
		c.Addrs = append(c.Addrs, addr)
	}
	ctx := context.Background()
	for _, addr := range c.Addrs {
		c.await(t, addr, 20*time.Second, func(n *redis.Client) bool { return n.Ping(ctx).Err() == nil })
	}
	out, err := exec.Command("redis-cli", append(append([]string{"--cluster", "create"}, c.Addrs...),
		"--cluster-replicas", "1", "--cluster-yes")...).CombinedOutput()
	if err != nil {
		t.Fatalf("testutil: redis-cli --cluster create: %v: %s", err, out)
	}
	for _, addr := range c.Addrs {
		c.await(t, addr, 30*time.Second, func(n *redis.Client) bool {
			info, err := n.ClusterInfo(ctx).Result()
			if err != nil || !strings.Contains(info, "cluster_state:ok") {
				return false
			}
			repl, err := n.Info(ctx, "replication").Result()
			return err == nil && (strings.Contains(repl, "state=online") || strings.Contains(repl, "master_link_status:up"))
		})
	}
	return c
}

// await polls fn on a client of addr every 50 ms until it holds, or fails the test after timeout.
func (c *OwnCluster) await(t testing.TB, addr string, timeout time.Duration, fn func(*redis.Client) bool) {
	t.Helper()
	n := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer n.Close()
	for deadline := time.Now().Add(timeout); !fn(n); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("testutil: own cluster node %s not ready within %s", addr, timeout)
		}
	}
}

// ReplicaOf returns the address of the replica of the master at addr.
func (c *OwnCluster) ReplicaOf(t testing.TB, master string) string {
	t.Helper()
	n := redis.NewClient(&redis.Options{Addr: master})
	defer n.Close()
	repl, err := n.Info(context.Background(), "replication").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(repl, "\n") { // slave0:ip=127.0.0.1,port=7004,state=online,…
		if !strings.HasPrefix(line, "slave0:") {
			continue
		}
		var ip, port string
		for _, kv := range strings.Split(strings.TrimSpace(strings.TrimPrefix(line, "slave0:")), ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "ip":
				ip = v
			case "port":
				port = v
			}
		}
		return net.JoinHostPort(ip, port)
	}
	t.Fatalf("testutil: master %s has no replica: %s", master, repl)
	return ""
}

// Signal sends sig to the node at addr (SIGSTOP and SIGCONT stall it: it neither answers nor
// acknowledges replication).
func (c *OwnCluster) Signal(t testing.TB, addr string, sig syscall.Signal) {
	t.Helper()
	p := c.procs[addr]
	if p == nil {
		t.Fatalf("testutil: no node %s in the own cluster", addr)
	}
	if err := p.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// stop kills every node (a stopped one is resumed so that it dies).
func (c *OwnCluster) stop() {
	for _, p := range c.procs {
		_ = p.Process.Signal(syscall.SIGCONT)
		_ = p.Process.Kill()
		_ = p.Wait()
	}
}

// freeClusterPorts returns n ports in 20000–29999 free on 127.0.0.1 together with their cluster
// bus ports (port + 10000), from a random start so that concurrent tests rarely meet.
func freeClusterPorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	start := 20000 + rand.IntN(9000)
	for p := start; p < 30000 && len(ports) < n; p++ {
		if portFree(p) && portFree(p+10000) {
			ports = append(ports, p)
		}
	}
	if len(ports) < n {
		t.Fatalf("testutil: %d free port pairs from %d", len(ports), start)
	}
	return ports
}

func portFree(p int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
