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
	var accepted, refused atomic.Int64
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
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				user := int64(1001 + rand.IntN(4000)) // users 1001…5000: 1500 overlap the file
				_, err := s.Redeemer.Redeem(ctx, user, tpl.ID, "")
				time.Sleep(2 * time.Millisecond) // ~8000 claims/s in all: the sale lasts as long as the task
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
		}()
	}
	for {
		cur := get(t, s, task.ID)
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
	for s.Redis.XLen(s.Ctx, keys.Outbox(tpl.ID)).Val() != 0 {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the persister's last batch settles
	done := get(t, s, task.ID)
	accounted(t, s, done, 2500, done.SuccessCount)
	held := books(t, s, tpl)
	claimed, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(tpl.ID), usercoupon.SourceEQ(usercoupon.SourceCLAIM)).Count(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range held {
		total += n
	}
	t.Logf("claims accepted %d (persisted %d), refused %d; distributed %d of 2500 rows; stock left %d; %d reconciliations", accepted.Load(), claimed, refused.Load(), done.SuccessCount, stock-total, checks.Load())
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
