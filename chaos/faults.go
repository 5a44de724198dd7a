package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hibiken/asynq"
)

// fault injects one fault into w while b runs and returns once everything it broke is back up,
// with a short description of what it did.
type fault func(ctx context.Context, w *world, b *burst, templateID int64) (string, error)

// noFault leaves the system alone (the client side of a scenario is the fault).
func noFault(context.Context, *world, *burst, int64) (string, error) { return "-", nil }

// restartable is a process of the world that a fault may kill and start again.
type restartable interface {
	process() *proc
	start(ctx context.Context) error
}

// killAt kill -9s the process pick chooses at share at of the burst and starts it again after down.
func killAt(name string, pick func(*world) restartable, at float64, down time.Duration) fault {
	return func(ctx context.Context, w *world, b *burst, _ int64) (string, error) {
		if err := b.waitProgress(ctx, at); err != nil {
			return "", err
		}
		r := pick(w)
		r.process().kill9()
		time.Sleep(down)
		t := time.Now()
		if err := r.start(ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("kill -9 %s at %.0f%%, back in %s", name, at*100, round(time.Since(t)+down)), nil
	}
}

// killServer kill -9s coupond at share at of the burst and starts it again after down.
func killServer(at float64, down time.Duration) fault {
	return killAt("coupond", func(w *world) restartable { return w.srv }, at, down)
}

// killRedis kill -9s Redis at share at and restarts it from its AOF after down.
func killRedis(at float64, down time.Duration) fault {
	return killAt("redis", func(w *world) restartable { return w.rd }, at, down)
}

// killMariaDB kill -9s MariaDB at share at and restarts it (InnoDB crash recovery) after down.
func killMariaDB(at float64, down time.Duration) fault {
	return killAt("mariadbd", func(w *world) restartable { return w.my }, at, down)
}

// powerLoss emulates a power loss of the Redis host under appendfsync everysec: the AOF
// directory is copied at share at of the burst (what had reached the disk), Redis is killed with
// -9 lag later, the copy replaces the AOF (everything written in the last lag is gone) and Redis
// starts again from it.
func powerLoss(at float64, lag time.Duration) fault {
	return func(ctx context.Context, w *world, b *burst, _ int64) (string, error) {
		if err := b.waitProgress(ctx, at); err != nil {
			return "", err
		}
		snap := w.rd.aofDir() + ".ondisk"
		if out, err := exec.Command("cp", "-a", w.rd.aofDir(), snap).CombinedOutput(); err != nil {
			return "", fmt.Errorf("copy AOF: %v: %s", err, out)
		}
		time.Sleep(lag)
		w.rd.p.kill9()
		if err := os.RemoveAll(w.rd.aofDir()); err != nil {
			return "", err
		}
		if err := os.Rename(snap, w.rd.aofDir()); err != nil {
			return "", err
		}
		if err := w.rd.start(ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("AOF copied at %.0f%%, kill -9 redis %s later, copy restored", at*100, lag), nil
	}
}

// stallMariaDB freezes MariaDB (SIGSTOP) for each of stalls in turn, starting at share at of the
// burst with 300 ms between them, and resumes it (SIGCONT) after each.
func stallMariaDB(at float64, stalls ...time.Duration) fault {
	return func(ctx context.Context, w *world, b *burst, _ int64) (string, error) {
		if err := b.waitProgress(ctx, at); err != nil {
			return "", err
		}
		for _, d := range stalls {
			if err := w.my.p.signal(syscall.SIGSTOP); err != nil {
				return "", err
			}
			time.Sleep(d)
			if err := w.my.p.signal(syscall.SIGCONT); err != nil {
				return "", err
			}
			time.Sleep(300 * time.Millisecond)
		}
		return fmt.Sprintf("SIGSTOP mariadbd %v from %.0f%%", stalls, at*100), nil
	}
}

// killServerInStall freezes MariaDB at share at of the burst, kill -9s coupond halfway through
// the stall (claims Redis accepted are then waiting for a commit that never comes), resumes
// MariaDB and starts coupond again.
func killServerInStall(at float64, stall time.Duration) fault {
	return func(ctx context.Context, w *world, b *burst, _ int64) (string, error) {
		if err := b.waitProgress(ctx, at); err != nil {
			return "", err
		}
		if err := w.my.p.signal(syscall.SIGSTOP); err != nil {
			return "", err
		}
		time.Sleep(stall / 2)
		w.srv.p.kill9()
		time.Sleep(stall / 2)
		if err := w.my.p.signal(syscall.SIGCONT); err != nil {
			return "", err
		}
		if err := w.srv.start(ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("SIGSTOP mariadbd %s at %.0f%%, kill -9 coupond halfway", stall, at*100), nil
	}
}

// evictHash deletes the template's cache hash every period from share from to share to of the
// burst, as an eviction (maxmemory, a failover, an operator) would.
func evictHash(from, to float64, period time.Duration) fault {
	return func(ctx context.Context, w *world, b *burst, templateID int64) (string, error) {
		if err := b.waitProgress(ctx, from); err != nil {
			return "", err
		}
		key := fmt.Sprintf("{t%d}:tpl", templateID)
		n := 0
		for b.progress() < to {
			select {
			case <-b.done:
				return fmt.Sprintf("DEL %s %d times", key, n), nil
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(period):
			}
			if deleted, err := w.rd.rdb.Del(ctx, key).Result(); err == nil && deleted == 1 {
				n++
			}
		}
		return fmt.Sprintf("DEL %s %d times every %s from %.0f%% to %.0f%%", key, n, period, from*100, to*100), nil
	}
}

// evictInBatch deletes the template's cache hash whenever the persister holds a batch it has
// not acknowledged yet (XPENDING > 0 on the outbox: read, maybe committed, not XACKed), from
// share from to share to of the burst, so the rebuild that the next claim triggers runs while that
// batch may be in MySQL and in the outbox at once.
func evictInBatch(from, to float64) fault {
	return func(ctx context.Context, w *world, b *burst, templateID int64) (string, error) {
		if err := b.waitProgress(ctx, from); err != nil {
			return "", err
		}
		key, outbox := fmt.Sprintf("{t%d}:tpl", templateID), fmt.Sprintf("{t%d}:outbox", templateID)
		n := 0
		for b.progress() < to {
			select {
			case <-b.done:
				return fmt.Sprintf("DEL %s %d times in a batch", key, n), nil
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(time.Millisecond):
			}
			if pending, err := xpending(ctx, w.rd.rdb, outbox); err != nil || pending == 0 {
				continue
			}
			if deleted, err := w.rd.rdb.Del(ctx, key).Result(); err == nil && deleted == 1 {
				n++
			}
		}
		return fmt.Sprintf("DEL %s %d times while a batch was unacknowledged, from %.0f%% to %.0f%%", key, n, from*100, to*100), nil
	}
}

// archivePersist archives the template's persister task through the asynq inspector from share
// at of the burst, as an operator would in asynqmon: a pending, scheduled or retrying task is
// archived at once; a running one is first cancelled (asynq then moves it to retry) and archived
// next. The task is the one with id persist:<template>, or any task whose type names "persist"
// and whose payload holds the template id (builds with random task ids). When none shows up
// within 10 s the description says "not injected" and the books are still taken.
func archivePersist(at float64) fault {
	return func(ctx context.Context, w *world, b *burst, templateID int64) (string, error) {
		if err := b.waitProgress(ctx, at); err != nil {
			return "", err
		}
		insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: w.rd.addr(), DB: 1})
		defer insp.Close()
		tid := strconv.FormatInt(templateID, 10)
		ours := func(t *asynq.TaskInfo) bool {
			return t.ID == "persist:"+tid || (strings.Contains(t.Type, "persist") && strings.Contains(string(t.Payload), tid))
		}
		cancelled := false
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			queues, err := insp.Queues()
			if err != nil {
				return "", fmt.Errorf("list queues: %w", err)
			}
			for _, q := range queues {
				for _, t := range persistTasks(insp, q) {
					switch {
					case !ours(t):
					case t.State == asynq.TaskStateActive:
						if err := insp.CancelProcessing(t.ID); err == nil {
							cancelled = true
						}
					default:
						if err := insp.ArchiveTask(q, t.ID); err == nil {
							return fmt.Sprintf("archived %s %s (%s, cancelled first: %v) in queue %s at %.0f%% of the burst",
								t.Type, t.ID, t.State, cancelled, q, b.progress()*100), nil
						}
					}
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		return "not injected: no persister task of the template to archive within 10 s", nil
	}
}

// persistTasks lists the tasks of queue q that can be archived or cancelled: pending, scheduled,
// retrying and active ones (the first page of each: the runner's queues are short).
func persistTasks(insp *asynq.Inspector, q string) []*asynq.TaskInfo {
	var all []*asynq.TaskInfo
	for _, list := range []func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error){
		insp.ListPendingTasks, insp.ListScheduledTasks, insp.ListRetryTasks, insp.ListActiveTasks,
	} {
		if tasks, err := list(q, asynq.PageSize(500)); err == nil {
			all = append(all, tasks...)
		}
	}
	return all
}

// together runs faults at the same time and returns when all have.
func together(faults ...fault) fault {
	return func(ctx context.Context, w *world, b *burst, templateID int64) (string, error) {
		descs := make([]string, len(faults))
		errs := make([]error, len(faults))
		var wg sync.WaitGroup
		for i, f := range faults {
			wg.Add(1)
			go func() {
				defer wg.Done()
				descs[i], errs[i] = f(ctx, w, b, templateID)
			}()
		}
		wg.Wait()
		return strings.Join(descs, "; "), errors.Join(errs...)
	}
}

func round(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
