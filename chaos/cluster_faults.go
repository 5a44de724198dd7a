package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// resumeTarget is issue 22's bound on a failover: persistence resumes within 5 s of the promotion.
const resumeTarget = 5 * time.Second

// killHotMaster kill -9s, at share at of the burst, the master owning the template's slot (the
// world's own cluster), waits until another node says the slot's owner changed (its replica was
// promoted after cluster-node-timeout), measures the time from then until MySQL holds a coupon or
// failure of the template it did not hold at the promotion, or the outbox is empty (w.resumedAfter), and
// starts the old master again (it rejoins as the new master's replica). With lag > 0 the master's
// replica and MariaDB are stalled (SIGSTOP) and the replication link cut (CLIENT KILL TYPE
// replica) lag before the kill, and both are resumed right after it:
// the claims the master acknowledged meanwhile reach neither the replica that is then promoted
// nor MySQL, the worst case of a failover behind a slow replica link.
func killHotMaster(at float64, lag time.Duration) fault {
	return func(ctx context.Context, w *world, b *burst, templateID int64) (string, error) {
		if err := b.waitProgress(ctx, at); err != nil {
			return "", err
		}
		key := fmt.Sprintf("{t%d}:tpl", templateID)
		old, err := w.rc.masterOf(ctx, key)
		if err != nil {
			return "", err
		}
		slot := int64(slotOf(key))
		var witness string
		for a := range w.rc.nodes {
			if a != old.addr {
				witness = a
				break
			}
		}
		lagged := ""
		if lag > 0 {
			replica, err := w.rc.replicaOf(ctx, old.addr)
			if err != nil {
				return "", err
			}
			for _, p := range []*proc{replica.p, w.my.p} {
				if err := p.signal(syscall.SIGSTOP); err != nil {
					return "", err
				}
				defer func() { _ = p.signal(syscall.SIGCONT) }()
			}
			// A stopped replica's kernel still takes in the replication stream; the master's
			// CLIENT KILL of the link keeps what follows from it.
			c := redis.NewClient(&redis.Options{Addr: old.addr, MaxRetries: -1})
			err = c.Do(ctx, "CLIENT", "KILL", "TYPE", "replica").Err()
			c.Close()
			if err != nil {
				return "", fmt.Errorf("cut the replication link: %w", err)
			}
			time.Sleep(lag)
			lagged = fmt.Sprintf(" after its replica %s (link cut) and MariaDB were stalled for %s", replica.addr, lag)
			old.p.kill9()
			for _, p := range []*proc{replica.p, w.my.p} {
				if err := p.signal(syscall.SIGCONT); err != nil {
					return "", err
				}
			}
		} else {
			old.p.kill9()
		}
		killed := time.Now()
		err = waitFor(ctx, 30*time.Second, func() error {
			owner, err := ownerOf(ctx, witness, slot)
			if err == nil && (owner == "" || owner == old.addr) {
				err = errors.New("replica not promoted yet")
			}
			return err
		})
		if err != nil {
			return "", fmt.Errorf("failover of slot %d: %w", slot, err)
		}
		promoted := time.Now()
		decided0, err := w.decided(ctx, templateID)
		if err != nil {
			return "", err
		}
		w.resumedAfter = -1
		outbox := fmt.Sprintf("{t%d}:outbox", templateID)
		_ = waitFor(ctx, quietMax, func() error {
			n, err := w.decided(ctx, templateID)
			if err == nil && n <= decided0 {
				// No claim newly decided: persistence has resumed only if nothing waits for it.
				xlen, err1 := w.data.XLen(ctx, outbox).Result()
				pending, err2 := xpending(ctx, w.data, outbox)
				if err = errors.Join(err1, err2); err != nil {
					w.rc.rdb.ReloadState(ctx) // the runner's own client may still name the dead master
				} else if xlen+pending > 0 {
					err = errors.New("nothing decided yet")
				}
			}
			if err == nil {
				w.resumedAfter = time.Since(promoted)
			}
			return err
		})
		if err := old.start(ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("kill -9 master %s of slot %d at %.0f%%%s, replica promoted after %s, persistence resumed %s after the promotion; old master back",
			old.addr, slot, at*100, lagged, round(promoted.Sub(killed)), round(w.resumedAfter)), nil
	}
}

// reshardHot moves the template's slot, at share at of the burst, from its master to another
// master as redis-cli --cluster reshard moves a slot: IMPORTING on the target, MIGRATING on the
// source, MIGRATE of its keys 100 at a time, then SETSLOT NODE on every master.
func reshardHot(at float64) fault {
	return func(ctx context.Context, w *world, b *burst, templateID int64) (string, error) {
		if err := b.waitProgress(ctx, at); err != nil {
			return "", err
		}
		key := fmt.Sprintf("{t%d}:tpl", templateID)
		src, err := w.rc.masterOf(ctx, key)
		if err != nil {
			return "", err
		}
		slot := slotOf(key)
		var masters []*redis.Client
		var dst *redis.Client
		for addr := range w.rc.nodes {
			c := redis.NewClient(&redis.Options{Addr: addr})
			defer c.Close()
			if role, err := c.Do(ctx, "ROLE").Slice(); err == nil && len(role) > 0 && role[0] == "master" {
				masters = append(masters, c)
				if dst == nil && addr != src.addr {
					dst = c
				}
			}
		}
		if dst == nil {
			return "", errors.New("no other master to move the slot to")
		}
		s := redis.NewClient(&redis.Options{Addr: src.addr})
		defer s.Close()
		srcID, err1 := s.Do(ctx, "CLUSTER", "MYID").Text()
		dstID, err2 := dst.Do(ctx, "CLUSTER", "MYID").Text()
		if err := errors.Join(err1, err2); err != nil {
			return "", err
		}
		start := time.Now()
		if err := dst.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", srcID).Err(); err != nil {
			return "", fmt.Errorf("IMPORTING: %w", err)
		}
		if err := s.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", dstID).Err(); err != nil {
			return "", fmt.Errorf("MIGRATING: %w", err)
		}
		host, port := dst.Options().Addr[:len("127.0.0.1")], dst.Options().Addr[len("127.0.0.1:"):]
		moved := 0
		for {
			keys, err := s.ClusterGetKeysInSlot(ctx, slot, 100).Result()
			if err != nil {
				return "", err
			}
			if len(keys) == 0 {
				break
			}
			args := []any{"MIGRATE", host, port, "", 0, 5000, "KEYS"}
			for _, k := range keys {
				args = append(args, k)
			}
			if err := s.Do(ctx, args...).Err(); err != nil {
				return "", fmt.Errorf("MIGRATE: %w", err)
			}
			moved += len(keys)
		}
		for _, m := range append([]*redis.Client{dst, s}, masters...) {
			if err := m.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", dstID).Err(); err != nil {
				return "", fmt.Errorf("SETSLOT NODE: %w", err)
			}
		}
		return fmt.Sprintf("slot %d (%d keys) moved from %s to %s at %.0f%% in %s", slot, moved, src.addr,
			dst.Options().Addr, at*100, round(time.Since(start))), nil
	}
}

// slotOf is the cluster slot of key (CRC16 of its hash tag, mod 16384).
func slotOf(key string) int {
	if i := indexByte(key, '{'); i >= 0 {
		if j := indexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// decided is the number of the template's claims MySQL has decided: its coupons and its failures.
func (w *world) decided(ctx context.Context, templateID int64) (int, error) {
	var n int
	err := w.my.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM coupond.user_coupon WHERE template_id = ?)
		+ (SELECT COUNT(*) FROM coupond.redemption_failure WHERE template_id = ?)`, templateID, templateID).Scan(&n)
	return n, err
}

// probeRate is how long claimRate fires; waitCost alternates probeRounds times between
// COUPON_REDIS_WAIT_REPLICAS 0 and 1.
const (
	probeRate   = 2 * time.Second
	probeRounds = 2
)

// waitCost measures in the world (its own cluster, same MariaDB) the claims/s coupond accepts
// without WAIT and with COUPON_REDIS_WAIT_REPLICAS=1, alternating, probeRounds each (coupond is
// restarted with the setting before each probe), and leaves coupond running with final, the
// scenario's setting. It returns the mean of each.
func waitCost(ctx context.Context, w *world, r *run, final int) (without, with float64, err error) {
	var sum [2]float64
	for i := range 2 * probeRounds {
		if err := w.srv.restartWith(ctx, "COUPON_REDIS_WAIT_REPLICAS="+strconv.Itoa(i%2)); err != nil {
			return 0, 0, err
		}
		rate, err := claimRate(ctx, w, r, concurrency)
		if err != nil {
			return 0, 0, err
		}
		sum[i%2] += rate
	}
	if err := w.srv.restartWith(ctx, "COUPON_REDIS_WAIT_REPLICAS="+strconv.Itoa(final)); err != nil {
		return 0, 0, err
	}
	return sum[0] / probeRounds, sum[1] / probeRounds, nil
}

// restartWith kill -9s coupond and starts it again with setting added to its environment (the
// last value of a variable wins).
func (s *server) restartWith(ctx context.Context, setting string) error {
	s.p.kill9()
	s.env = append(s.env, setting)
	return s.start(ctx)
}

// claimRate measures the claims per second the world's coupond accepts with concurrency clients
// and no rate limit, on a template of its own, for probeRate: the throughput a fault scenario's
// settings (COUPON_REDIS_WAIT_REPLICAS) allow, before its burst.
func claimRate(ctx context.Context, w *world, r *run, concurrency int) (float64, error) {
	tpl, err := w.gql.createTemplate(ctx, r.merchant, 1_000_000, 1000, 0)
	if err != nil {
		return 0, err
	}
	var accepted, seq atomic.Int64
	deadline := time.Now().Add(probeRate)
	var wg sync.WaitGroup
	for c := range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				n := seq.Add(1)
				u := int(n) % len(r.users)
				a := w.gql.redeem(ctx, 5*time.Second, r.users[u], tpl, "probe-"+strconv.Itoa(c)+"-"+strconv.FormatInt(n, 10))
				if a.accepted() {
					accepted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(accepted.Load()) / probeRate.Seconds(), nil
}
