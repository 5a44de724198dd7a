package distribution_test

import (
	"bytes"
	"context"
	"net"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"coupond/coupon/distribution"
	"coupond/coupon/keys"
	"coupond/ent/coupontask"
	"coupond/store"
	"coupond/testutil/stack"
)

// connectedClients is Redis's INFO clients connected_clients.
func connectedClients(t *testing.T, s *stack.Stack) int {
	t.Helper()
	info, err := s.Redis.Info(s.Ctx, "clients").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "connected_clients:"); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no connected_clients in %q", info)
	return 0
}

// progressGoroutines counts this process's goroutines that follow progress: the subscribers',
// the hub's and its go-redis subscription's.
func progressGoroutines() int {
	var b bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&b, 2)
	n := 0
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(g, "coupon/distribution.(*Service).Progress") || strings.Contains(g, "coupon/distribution.(*watch)") ||
			strings.Contains(g, "coupon/distribution.(*progressHub)") || strings.Contains(g, "go-redis/v9.(*channel)") {
			n++
		}
	}
	return n
}

// TestFiveHundredSubscribersShareOneRedisSubscription: 500 subscribers follow one task while it
// runs in 8 batches. Redis's connected_clients stays flat (each subscriber used to open its own
// pub/sub connection: +500), every subscriber gets the task as it was and its end state, one that
// does not read meanwhile holds nobody up and still ends with the end state, and once they are
// gone the task's channel has no subscriber and no progress goroutine is left.
func TestFiveHundredSubscribersShareOneRedisSubscription(t *testing.T) {
	const subscribers = 500
	s := newStack(t, "hub", 5)
	tpl := s.Template(t, 1000, 1, nil)
	task := create(t, s, tpl.ID, "users.csv", csvOf(ids(800001, 40)...))
	leftBefore := progressGoroutines()
	before := connectedClients(t, s)

	ctx, cancel := context.WithTimeout(s.Ctx, time.Minute)
	defer cancel()
	streams := make([]<-chan *distribution.Task, subscribers)
	for i := range streams {
		var err error
		if streams[i], err = s.Distribution.Progress(ctx, stack.Merchant, task.ID); err != nil {
			t.Fatal(err)
		}
	}
	during := connectedClients(t, s)
	// Other test processes share this Redis, so a little drift is allowed; 500 connections are not.
	if during-before > 20 {
		t.Fatalf("connected_clients %d with %d subscribers, %d before", during, subscribers, before)
	}

	var wg sync.WaitGroup
	pushes := make([][]*distribution.Task, subscribers)
	for i := 1; i < subscribers; i++ { // streams[0] is not read until the others are done
		wg.Go(func() {
			for tk := range streams[i] {
				pushes[i] = append(pushes[i], tk)
			}
		})
	}
	if err := s.Distribution.Run(s.Ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("the subscribers did not all see the end in a minute")
	}
	for tk := range streams[0] {
		pushes[0] = append(pushes[0], tk)
	}
	if after := connectedClients(t, s); after-before > 20 {
		t.Fatalf("connected_clients %d after the run, %d before", after, before)
	}
	for i, p := range pushes {
		if len(p) < 2 || p[0].Status != coupontask.StatusPENDING {
			t.Fatalf("subscriber %d got %d pushes, the first %+v; want the task as it was, then its changes", i, len(p), p[0])
		}
		if end := p[len(p)-1]; end.Status != coupontask.StatusSUCCESS || end.ProcessedRows != 40 || end.SuccessCount != 40 {
			t.Fatalf("subscriber %d ended with %s %d/%d, want SUCCESS 40/40", i, end.Status, end.SuccessCount, end.ProcessedRows)
		}
		for j := 1; j < len(p); j++ {
			if p[j].ProcessedRows < p[j-1].ProcessedRows {
				t.Fatalf("subscriber %d got %d processed rows after %d", i, p[j].ProcessedRows, p[j-1].ProcessedRows)
			}
		}
	}

	deadline := time.Now().Add(5 * time.Second)
	for {
		subs := numSub(t, s.Redis, keys.DistributionProgress(task.ID))
		left := progressGoroutines()
		if subs == 0 && left <= leftBefore {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the last subscriber: %d Redis subscribers of the task, %d progress goroutines (%d before)",
				subs, left, leftBefore)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestProgressEndsWithItsSubscriber: a subscriber that leaves (its context ends) while the task
// is still pending takes its goroutines and the task's Redis subscription with it.
func TestProgressEndsWithItsSubscriber(t *testing.T) {
	s := newStack(t, "hubleave", 5)
	tpl := s.Template(t, 10, 1, nil)
	task := create(t, s, tpl.ID, "users.csv", csvOf(ids(810001, 3)...))
	leftBefore := progressGoroutines()
	ctx, cancel := context.WithCancel(s.Ctx)
	var streams []<-chan *distribution.Task
	for range 3 {
		st, err := s.Distribution.Progress(ctx, stack.Merchant, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, st)
	}
	for _, st := range streams {
		if first := <-st; first.Status != coupontask.StatusPENDING {
			t.Fatalf("first push %s, want PENDING", first.Status)
		}
	}
	ch := keys.DistributionProgress(task.ID)
	if subs := numSub(t, s.Redis, ch); subs != 1 {
		t.Fatalf("%d Redis subscriptions to the task for 3 subscribers, want 1", subs)
	}
	cancel()
	for _, st := range streams {
		for range st {
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		subs := numSub(t, s.Redis, ch)
		left := progressGoroutines()
		if subs == 0 && left <= leftBefore {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the subscribers left: %d Redis subscriptions, %d progress goroutines (%d before)", subs, left, leftBefore)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ownRedis is a redis-server of this test on a free port, killed when the test ends.
type ownRedis struct {
	t    *testing.T
	addr string
	cmd  *exec.Cmd
}

func startOwnRedis(t *testing.T) *ownRedis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("needs redis-server on PATH")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &ownRedis{t: t, addr: l.Addr().String()}
	l.Close()
	r.start()
	t.Cleanup(r.kill)
	return r
}

// start runs redis-server on r's port and waits until it answers.
func (r *ownRedis) start() {
	r.t.Helper()
	_, port, _ := net.SplitHostPort(r.addr)
	r.cmd = exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	ping := redis.NewClient(&redis.Options{Addr: r.addr})
	defer ping.Close()
	for deadline := time.Now().Add(10 * time.Second); ping.Ping(context.Background()).Err() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.t.Fatal("redis-server did not answer in 10 s")
		}
	}
}

func (r *ownRedis) kill() {
	if r.cmd != nil && r.cmd.Process != nil {
		r.cmd.Process.Kill()
		r.cmd.Wait()
		r.cmd = nil
	}
}

// TestProgressAfterARedisRestart: the hub's subscription survives a Redis restart, and a change
// made while Redis was away reaches the subscriber once it is back (the resubscription reads the
// task; polling is off here), as do announcements afterwards.
func TestProgressAfterARedisRestart(t *testing.T) {
	s := newStack(t, "hubrestart", 5)
	tpl := s.Template(t, 10, 1, nil)
	task := create(t, s, tpl.ID, "users.csv", csvOf(ids(820001, 3)...))
	r := startOwnRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: r.addr, DialTimeout: time.Second})
	t.Cleanup(func() { rdb.Close() })
	svc := distribution.New(s.DB, rdb, nil, nil, nil, nil, distribution.Config{})
	svc.SetProgressPoll(time.Hour)
	ctx, cancel := context.WithTimeout(s.Ctx, time.Minute)
	defer cancel()
	st, err := svc.Progress(ctx, stack.Merchant, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if first := <-st; first.Status != coupontask.StatusPENDING {
		t.Fatalf("first push %s", first.Status)
	}
	ch := keys.DistributionProgress(task.ID)
	next := func(what string, rows int) {
		t.Helper()
		select {
		case tk := <-st:
			if tk.ProcessedRows != rows {
				t.Fatalf("%s: %d processed rows, want %d", what, tk.ProcessedRows, rows)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no push in 10 s", what)
		}
	}
	for subs, _ := rdb.PubSubNumSub(ctx, ch).Result(); subs[ch] != 1; subs, _ = rdb.PubSubNumSub(ctx, ch).Result() {
		time.Sleep(20 * time.Millisecond)
	}
	rdb.Publish(ctx, ch, "1") // an announcement without a change: no push
	s.DB.CouponTask.UpdateOneID(task.ID).SetProcessedRows(1).ExecX(ctx)
	rdb.Publish(ctx, ch, "1")
	next("announced", 1)

	r.kill()
	s.DB.CouponTask.UpdateOneID(task.ID).SetProcessedRows(2).ExecX(ctx)
	r.start()
	next("changed while Redis was down", 2)

	s.DB.CouponTask.UpdateOneID(task.ID).SetProcessedRows(3).ExecX(ctx)
	rdb.Publish(ctx, ch, "1")
	next("announced after the restart", 3)
}

// numSub is the number of Redis subscriptions to ch: on a Redis Cluster summed over its masters,
// as a node counts only its own clients' subscriptions (a PUBLISH reaches every node).
func numSub(t *testing.T, rdb redis.UniversalClient, ch string) int64 {
	t.Helper()
	var mu sync.Mutex
	var n int64
	err := store.ForEachMaster(context.Background(), rdb, func(ctx context.Context, node *redis.Client) error {
		subs, err := node.PubSubNumSub(ctx, ch).Result()
		mu.Lock()
		n += subs[ch]
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
