package claim_test

import (
	"syscall"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/coupon/keys"
	"coupond/services"
	"coupond/testutil"
	"coupond/testutil/stack"

	"github.com/redis/go-redis/v9"
)

// With COUPON_REDIS_WAIT_REPLICAS=1 on a cluster of its own (3 masters, 3 replicas), in both
// modes: claims are answered as without WAIT while every replica runs; while the replica of the
// template's master is stalled (SIGSTOP) a claim is answered UNCONFIRMED after the WAIT timeout,
// and so is its retry; once the replica runs again the retry with the same requestId answers that
// same claim (PENDING in async mode, ISSUED in sync mode), and the books hold it once.
func TestWaitReplicasUnconfirmedThenRetried(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	oc := testutil.StartOwnCluster(t)
	for _, mode := range []claim.Mode{claim.ModeAsync, claim.ModeSync} {
		t.Run(string(mode), func(t *testing.T) {
			rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: oc.Addrs})
			t.Cleanup(func() { rdb.Close() })
			cfg := claim.Config{Mode: mode, WaitReplicas: 1, WaitTimeout: time.Second} // a busy test box keeps to it
			s := stack.New(t, "claim", "wait_"+string(mode), stack.Options{Redis: rdb, Config: services.Config{
				Redeem: cfg, Persist: claim.PersistConfig{BatchSize: 7, ClaimIdle: time.Millisecond},
			}})
			tpl := s.Template(t, 10, 2, nil)
			want := map[claim.Mode]claim.RedemptionStatus{claim.ModeAsync: claim.RedemptionPending, claim.ModeSync: claim.RedemptionIssued}[mode]
			if red, err := s.Redeemer.Redeem(s.Ctx, 1, tpl.ID, "up"); err != nil || red.Status != want {
				t.Fatalf("claim with the replicas up: %+v, %v; want %s", red, err, want)
			}

			master, err := rdb.MasterForKey(s.Ctx, keys.Template(tpl.ID))
			if err != nil {
				t.Fatal(err)
			}
			replica := oc.ReplicaOf(t, master.Options().Addr)
			oc.Signal(t, replica, syscall.SIGSTOP)
			stopped := true
			defer func() {
				if stopped {
					oc.Signal(t, replica, syscall.SIGCONT)
				}
			}()
			for range 2 { // the first call and a retry while the replica is still stalled
				if _, err := s.Redeemer.Redeem(s.Ctx, 2, tpl.ID, "stalled"); codeOf(err) != coupon.CodeUnconfirmed {
					t.Fatalf("claim with the replica stalled: %v, want UNCONFIRMED", err)
				}
			}
			oc.Signal(t, replica, syscall.SIGCONT)
			stopped = false

			var red *claim.Redemption
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				red, err = s.Redeemer.Redeem(s.Ctx, 2, tpl.ID, "stalled")
				if codeOf(err) != coupon.CodeUnconfirmed || time.Now().After(deadline) {
					break
				}
			}
			if err != nil {
				t.Fatalf("retry after the replica resumed: %v", err)
			}
			if _, err := s.Persister.Drain(s.Ctx, tpl.ID); err != nil {
				t.Fatal(err)
			}
			again, err := s.Redeemer.Redeem(s.Ctx, 2, tpl.ID, "stalled")
			if err != nil || again.ID != red.ID || again.Status != claim.RedemptionIssued {
				t.Fatalf("retry after the drain: %+v, %v; want %s ISSUED", again, err, red.ID)
			}
			rows := s.DB.UserCoupon.Query().CountX(s.Ctx)
			if rows != 2 {
				t.Fatalf("%d coupons, want 2 (one per claim; the retried one once)", rows)
			}
			if got := s.DB.CouponTemplate.GetX(s.Ctx, tpl.ID).Stock; got != 8 {
				t.Fatalf("MySQL stock %d, want 8", got)
			}
		})
	}
}
