package lua

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

// wait1 is WAIT 1 with a timeout a busy test box keeps to with every replica up; stalled1 the
// shorter one of the stalled replica's calls, which wait for all of it.
var (
	wait1    = Wait{Replicas: 1, Timeout: 2 * time.Second}
	stalled1 = Wait{Replicas: 1, Timeout: 300 * time.Millisecond}
)

// On the tests' Redis, a claim followed by WAIT 1 is confirmed exactly when the master owning its
// slot has a replica (every master of the local cluster has one; the one Redis has none), and the
// claim is made either way.
func TestRedeemBatchWaitOnTheTestRedis(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	const tid = 81
	putTemplate(t, rdb, tid, activeTpl(5, 1))
	k := redeemKeys(tid, 1, "req", "rd-w1")
	replicas := 0
	err := forMasterOf(ctx, rdb, k.Template, func(n *redis.Client) error {
		info, err := n.Info(ctx, "replication").Result()
		if strings.Contains(info, "connected_slaves:") {
			replicas, _ = strconv.Atoi(strings.TrimSpace(strings.SplitN(strings.SplitN(info, "connected_slaves:", 2)[1], "\n", 2)[0]))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	results, errs := RedeemBatchWait(ctx, rdb, []RedeemCall{{Keys: k, Args: asyncArgs(1, "rd-w1")}}, wait1)
	var short *ReplicaShortfall
	if results[0].Code != RedeemOK || results[0].RedemptionID != "rd-w1" {
		t.Fatalf("result %+v, want the claim made", results[0])
	}
	if got := errors.As(errs[0], &short); got != (replicas < 1) {
		t.Fatalf("%d replicas: error %v, want a ReplicaShortfall exactly when there is none", replicas, errs[0])
	}
}

// forMasterOf runs fn on the node owning key (rdb itself on one server).
func forMasterOf(ctx context.Context, rdb redis.UniversalClient, key string, fn func(*redis.Client) error) error {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		n, err := c.MasterForKey(ctx, key)
		if err != nil {
			return err
		}
		return fn(n)
	}
	return fn(rdb.(*redis.Client))
}

// On a cluster of its own: WAIT runs per master, so one stalled replica (SIGSTOP) leaves the
// claims on other masters confirmed and makes only its master's claims fall short, each with its
// script's answer; a replay of such a claim while the replica is still stalled falls short too
// (a replay writes nothing, so its WAIT alone would count acknowledgements of older writes); once
// the replica runs again the replay is confirmed and answers the first claim.
func TestRedeemBatchWaitPerMasterWithAStalledReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	ctx := context.Background()
	testutil.Redis(t, "lua") // the namespace
	oc := testutil.StartOwnCluster(t)
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: oc.Addrs})
	t.Cleanup(func() { rdb.Close() })

	// Templates on every master: tids until three distinct masters own one.
	byMaster := map[string]int64{}
	for tid := int64(1); len(byMaster) < 3; tid++ {
		n, err := rdb.MasterForKey(ctx, redeemKeys(tid, 0, "", "").Template)
		if err != nil {
			t.Fatal(err)
		}
		if _, seen := byMaster[n.Options().Addr]; !seen {
			byMaster[n.Options().Addr] = tid
			putTemplate(t, rdb, tid, activeTpl(10, 5))
		}
	}
	claim := func(tid, user int64, req string) RedeemCall {
		rid := "rd-" + strconv.FormatInt(tid, 10) + "-" + req
		return RedeemCall{Keys: redeemKeys(tid, user, req, rid), Args: asyncArgs(user, rid)}
	}
	var calls []RedeemCall
	for _, tid := range byMaster {
		calls = append(calls, claim(tid, 1, "a"), claim(tid, 2, "a"))
	}
	results, errs := RedeemBatchWait(ctx, rdb, calls, wait1)
	for i := range calls {
		if errs[i] != nil || results[i].Code != RedeemOK {
			t.Fatalf("call %d with every replica up: %+v, %v", i, results[i], errs[i])
		}
	}

	var stalled string
	for m := range byMaster {
		stalled = m
		break
	}
	replica := oc.ReplicaOf(t, stalled)
	oc.Signal(t, replica, syscall.SIGSTOP)
	stopped := true
	defer func() {
		if stopped {
			oc.Signal(t, replica, syscall.SIGCONT)
		}
	}()
	calls = calls[:0]
	for _, tid := range byMaster {
		calls = append(calls, claim(tid, 3, "b"))
	}
	start := time.Now()
	results, errs = RedeemBatchWait(ctx, rdb, calls, stalled1)
	for i, c := range calls {
		var short *ReplicaShortfall
		onStalled := c.Keys.Template == redeemKeys(byMaster[stalled], 0, "", "").Template
		if results[i].Code != RedeemOK || results[i].RedemptionID != c.Args.RedemptionID {
			t.Fatalf("call %d: %+v, want the claim made", i, results[i])
		}
		if errors.As(errs[i], &short) != onStalled {
			t.Fatalf("call %d (on the stalled replica's master: %v): error %v", i, onStalled, errs[i])
		}
	}
	if took := time.Since(start); took < stalled1.Timeout {
		t.Fatalf("the batch took %s, less than WAIT's timeout", took)
	}

	first := claim(byMaster[stalled], 3, "b")
	replay := first
	replay.Args.RedemptionID = "rd-other" // a retry's new id; the replay answers the first one
	// A new client: a connection that never wrote, whose WAIT alone would count any replica.
	fresh := redis.NewClusterClient(&redis.ClusterOptions{Addrs: oc.Addrs})
	t.Cleanup(func() { fresh.Close() })
	results, errs = RedeemBatchWait(ctx, fresh, []RedeemCall{replay}, stalled1)
	var short *ReplicaShortfall
	if !results[0].Replayed || results[0].RedemptionID != first.Args.RedemptionID || !errors.As(errs[0], &short) {
		t.Fatalf("replay while the replica is stalled: %+v, %v; want the first claim, unconfirmed", results[0], errs[0])
	}

	oc.Signal(t, replica, syscall.SIGCONT)
	stopped = false
	deadline := time.Now().Add(10 * time.Second)
	for {
		results, errs = RedeemBatchWait(ctx, rdb, []RedeemCall{replay}, wait1)
		if errs[0] == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replay after the replica resumed: %+v, %v", results[0], errs[0])
		}
	}
	if !results[0].Replayed || results[0].RedemptionID != first.Args.RedemptionID {
		t.Fatalf("replay after the replica resumed: %+v; want the first claim", results[0])
	}
}
