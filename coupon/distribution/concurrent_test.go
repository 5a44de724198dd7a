package distribution_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/distribution"
	"coupond/coupon/keys"
	"coupond/coupon/reconcile"
	"coupond/ent/coupontask"
	"coupond/ent/usercoupon"
	"coupond/services"
	"coupond/testutil/stack"
)

// Canceled while its second batch runs: the task stops at that batch's boundary, CANCELED with
// completedAt, counts exact, and nothing is issued after the boundary, also by a later run.
func TestCancelMidRunStopsAtTheBatchBoundary(t *testing.T) {
	s := newStack(t, "cancel", 10)
	tpl := s.Template(t, 1000, 1, nil)
	task := create(t, s, tpl.ID, "u.csv", csvOf(ids(1, 100)...))
	batches := 0
	s.Distribution.SetStep(func(name string) {
		if name == "deducted" {
			if batches++; batches == 2 {
				if _, err := s.Distribution.Cancel(s.Ctx, stack.Merchant, task.ID); err != nil {
					t.Error(err)
				}
			}
		}
	})
	done := run(t, s, task.ID)
	s.Distribution.SetStep(nil)
	if done.Status != coupontask.StatusCANCELED || done.CompletedAt == nil {
		t.Fatalf("status %s completed %v, want CANCELED with completedAt", done.Status, done.CompletedAt)
	}
	if done.ProcessedRows != 20 || done.SuccessCount != 20 || done.FailCount != 0 || done.ResumeRow != 21 {
		t.Fatalf("processed %d success %d fail %d resume %d; want 20 20 0 21", done.ProcessedRows, done.SuccessCount, done.FailCount, done.ResumeRow)
	}
	again := run(t, s, task.ID)
	if n := len(books(t, s, tpl)); n != 20 || again.ProcessedRows != 20 {
		t.Fatalf("%d users hold coupons after another run, want 20", n)
	}
	if _, err := s.Distribution.Cancel(s.Ctx, stack.Merchant, task.ID); codeOf(err) != coupon.CodeInvalidState {
		t.Fatalf("cancel of a canceled task: %v, want INVALID_STATE", err)
	}
}

func codeOf(err error) coupon.Code {
	if errs := coupon.AsErrors(err); errs != nil {
		return errs[0].Code
	}
	return ""
}

// A flash sale of the same template runs while a distribution (with a worker, batches of 100)
// hands it out: claims of 4000 users (1500 of them also in the file, limit 2) hammer redeemCoupon
// the whole time, and the reconciliation runs over and over. After both finish, the books are exact:
// coupons of both paths = stock consumed, Redis stock = DB stock, every user's counter = the
// coupons MySQL has, nobody over the limit; no reconciliation saw drift meanwhile.
func TestFlashSaleDuringDistribution(t *testing.T) {
	s := stack.New(t, "dist", "flash", stack.Options{Worker: true, Kick: true, Config: services.Config{
		Distribution: distribution.Config{BatchSize: 100},
	}})
	const stock = 3000
	tpl := s.Template(t, stock, 2, nil)
	file := ids(1, 2500) // users 1…2500 listed
	task := create(t, s, tpl.ID, "u.csv", csvOf(file...))

	ctx, stop := context.WithTimeout(s.Ctx, 60*time.Second)
	defer stop()
	for get(t, s, task.ID).ProcessedRows == 0 && ctx.Err() == nil { // the sale opens once the task runs
		time.Sleep(5 * time.Millisecond)
	}
	var wg sync.WaitGroup
	rec := reconcile.New(s.DB, s.Redis, reconcile.Config{})
	var checks atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			rep, err := rec.Check(s.Ctx, stack.Merchant, tpl.ID)
			if err != nil {
				t.Error(err)
				return
			}
			if !rep.Balanced {
				t.Errorf("reconciliation during the sale: %q", rep.Drift)
			}
			if res, err := rec.Run(s.Ctx); err != nil || res.Drifting != 0 {
				t.Errorf("reconciliation run during the sale: %+v, %v", res, err)
			}
			checks.Add(1)
		}
	}()
	sale := claimDuring(t, s, ctx, stop, &wg, tpl, 1, task.ID)
	claimed, done, total := sale.claimed, sale.task, sale.total
	t.Logf("claims accepted %d (persisted %d), refused %d; distributed %d of 2500 rows; stock left %d; %d reconciliations", sale.accepted, claimed, sale.refused, done.SuccessCount, stock-total, checks.Load())
	if rep, err := rec.Check(s.Ctx, stack.Merchant, tpl.ID); err != nil || !rep.Balanced || rep.Pending != 0 || rep.Issued != total {
		t.Fatalf("reconciliation after the sale: %+v, %v", rep, err)
	}
	if checks.Load() < 3 {
		t.Fatalf("only %d reconciliations ran during the sale", checks.Load())
	}
	if claimed+done.SuccessCount != total || done.SuccessCount == 0 || claimed == 0 {
		t.Fatalf("claims %d + distributed %d != coupons %d (or one path issued nothing)", claimed, done.SuccessCount, total)
	}
}

// saleOutcome is what claimDuring saw: the claims accepted and refused, the task as it ended, and the
// books after the sale was persisted: coupons of claims in MySQL, and of both paths.
type saleOutcome struct {
	accepted, refused int64
	task              *distribution.Task
	claimed, total    int
}

// claimDuring claims tpl (its stock in shards stock shards) from 16 goroutines, users 1001…5000
// (1500 of them in a file of users 1…2500), about 8,000 claims/s in all, until task is done (ctx
// ends it after its time: the test fails). Then it stops ctx (stop), waits for the claimers and
// whatever else wg holds, until every outbox is empty and the persister's last batch settled, and
// checks the task accounted for its 2500 rows.
func claimDuring(t *testing.T, s *stack.Stack, ctx context.Context, stop func(), wg *sync.WaitGroup, tpl *coupon.Template, shards int, task int64) saleOutcome {
	t.Helper()
	var accepted, refused atomic.Int64
	for range 16 {
		wg.Go(func() {
			for ctx.Err() == nil {
				user := int64(1001 + rand.IntN(4000))
				_, err := s.Redeemer.Redeem(ctx, user, tpl.ID, "")
				time.Sleep(2 * time.Millisecond)
				switch {
				case err == nil:
					accepted.Add(1)
				case codeOf(err) == coupon.CodeOutOfStock || codeOf(err) == coupon.CodeLimitReached:
					if refused.Add(1) > 20000 {
						return
					}
				case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
					return
				default:
					t.Error(err)
					return
				}
			}
		})
	}
	for {
		cur := get(t, s, task)
		if cur.Done() {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("task still %s after 60 s (%d rows)", cur.Status, cur.ProcessedRows)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	wg.Wait()
	for i := 0; i < shards; {
		if s.Redis.XLen(s.Ctx, keys.StockShard(tpl.ID, i, shards).Outbox()).Val() == 0 {
			i++
			continue
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the persister's last batch settles
	out := saleOutcome{accepted: accepted.Load(), refused: refused.Load(), task: get(t, s, task)}
	accounted(t, s, out.task, 2500, out.task.SuccessCount)
	claimed, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(tpl.ID), usercoupon.SourceEQ(usercoupon.SourceCLAIM)).Count(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	out.claimed = claimed
	for _, n := range books(t, s, tpl) {
		out.total += n
	}
	return out
}
