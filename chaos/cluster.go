package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisCluster is a scenario's own Redis Cluster: 3 masters and 3 replicas on free ports (and
// their bus ports, +10000), data in dir, cluster-node-timeout 2000, AOF everysec, noeviction (as
// scripts/services.sh runs the shared one, which no scenario touches), and
// cluster-replica-validity-factor 0: a replica of a fresh cluster otherwise refused to fail over
// ("Disconnected from master for longer than allowed"), and the scenarios are about the failover.
type redisCluster struct {
	dir   string
	nodes map[string]*redisNode // by address
	addrs []string
	rdb   *redis.ClusterClient // the runner's own client, for the books and the faults
}

// redisNode is one node of a redisCluster; start runs it again on its data (it rejoins).
type redisNode struct {
	addr, dir string
	port      int
	p         *proc
}

func (n *redisNode) process() *proc { return n.p }

func (n *redisNode) start(ctx context.Context) error {
	p, err := startProc("redis-server", n.dir+".log", nil, "redis-server",
		"--port", strconv.Itoa(n.port), "--bind", "127.0.0.1", "--dir", n.dir,
		"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
		"--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--maxmemory-policy", "noeviction",
		"--cluster-replica-validity-factor", "0", "--daemonize", "no")
	if err != nil {
		return err
	}
	n.p = p
	c := redis.NewClient(&redis.Options{Addr: n.addr, MaxRetries: -1})
	defer c.Close()
	return waitFor(ctx, 30*time.Second, func() error {
		if !p.alive() {
			return errors.New("redis-server exited; see " + n.dir + ".log")
		}
		return c.Ping(ctx).Err()
	})
}

// newRedisCluster starts six nodes on ports from 7100–7199 (not 7000–7005) and makes them one
// cluster with redis-cli, then waits until it is healthy.
func newRedisCluster(ctx context.Context, dir string) (*redisCluster, error) {
	rc := &redisCluster{dir: dir, nodes: map[string]*redisNode{}}
	port := 7100
	for len(rc.addrs) < 6 {
		p, err := freePort(port, 7199)
		if err != nil {
			rc.close()
			return nil, err
		}
		port = p + 1
		if _, err := freePort(p+10000, p+10000); err != nil {
			continue
		}
		n := &redisNode{addr: "127.0.0.1:" + strconv.Itoa(p), dir: filepath.Join(dir, strconv.Itoa(p)), port: p}
		if err := os.MkdirAll(n.dir, 0o755); err != nil {
			rc.close()
			return nil, err
		}
		if err := n.start(ctx); err != nil {
			rc.close()
			return nil, err
		}
		rc.nodes[n.addr] = n
		rc.addrs = append(rc.addrs, n.addr)
	}
	args := append(append([]string{"--cluster", "create"}, rc.addrs...), "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		rc.close()
		return nil, fmt.Errorf("redis-cli --cluster create: %v: %s", err, tail(out))
	}
	rc.rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: rc.addrs, DialTimeout: time.Second,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
	if err := rc.waitHealthy(ctx, 30*time.Second, ""); err != nil {
		rc.close()
		return nil, err
	}
	return rc, nil
}

// waitHealthy waits until every live node but skip says cluster_state:ok and every master has a
// replica in sync.
func (rc *redisCluster) waitHealthy(ctx context.Context, timeout time.Duration, skip string) error {
	return waitFor(ctx, timeout, func() error {
		for addr, n := range rc.nodes {
			if addr == skip || !n.p.alive() {
				continue
			}
			c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
			info, err := c.ClusterInfo(ctx).Result()
			repl, err2 := c.Info(ctx, "replication").Result()
			c.Close()
			if err != nil || err2 != nil {
				return errors.Join(err, err2)
			}
			if !strings.Contains(info, "cluster_state:ok") {
				return fmt.Errorf("%s: cluster_state not ok", addr)
			}
			if strings.Contains(repl, "role:master") && !strings.Contains(repl, "state=online") {
				return fmt.Errorf("%s: master without its replica", addr)
			}
		}
		return nil
	})
}

// masterOf returns the node that owns key's slot now, as the cluster says.
func (rc *redisCluster) masterOf(ctx context.Context, key string) (*redisNode, error) {
	rc.rdb.ReloadState(ctx)
	time.Sleep(100 * time.Millisecond) // ReloadState is lazy
	c, err := rc.rdb.MasterForKey(ctx, key)
	if err != nil {
		return nil, err
	}
	n := rc.nodes[c.Options().Addr]
	if n == nil {
		return nil, fmt.Errorf("no node %s", c.Options().Addr)
	}
	return n, nil
}

// replicaOf returns the replica of the master at addr (its INFO replication's slave0).
func (rc *redisCluster) replicaOf(ctx context.Context, master string) (*redisNode, error) {
	c := redis.NewClient(&redis.Options{Addr: master, MaxRetries: -1})
	defer c.Close()
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(info, "\n") { // slave0:ip=127.0.0.1,port=7104,state=online,…
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "slave0:"); ok {
			var ip, port string
			for _, kv := range strings.Split(rest, ",") {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "ip":
					ip = v
				case "port":
					port = v
				}
			}
			if n := rc.nodes[ip+":"+port]; n != nil {
				return n, nil
			}
		}
	}
	return nil, fmt.Errorf("master %s has no replica of this cluster", master)
}

// ownerOf asks the node at addr which node owns slot (CLUSTER SHARDS: the shard's online master),
// "" when none does.
func ownerOf(ctx context.Context, addr string, slot int64) (string, error) {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	shards, err := c.ClusterShards(ctx).Result()
	if err != nil {
		return "", err
	}
	for _, sh := range shards {
		for _, r := range sh.Slots {
			if r.Start > slot || slot > r.End {
				continue
			}
			for _, n := range sh.Nodes {
				if n.Role == "master" && n.Health == "online" {
					return n.IP + ":" + strconv.FormatInt(n.Port, 10), nil
				}
			}
		}
	}
	return "", nil
}

func (rc *redisCluster) close() {
	if rc.rdb != nil {
		rc.rdb.Close()
	}
	for _, n := range rc.nodes {
		n.p.kill9()
	}
}
