package claim_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	promtest "github.com/prometheus/client_golang/prometheus/testutil"

	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent/stockbatch"
	"coupond/services"
	"coupond/testutil/stack"
)

// booksAfterSettling waits until the template's outbox is empty and no stock batch of it is OPEN
// (a sync group's batch may still be settling claims the persister wrote first: its T3 gives back
// what it reserved), then checks that every unit is accounted for in both stores and that no
// user's limit leaked: DB stock + coupons = total, Redis stock = DB stock, and each user's Redis
// counter equals the coupons MySQL has for them.
func booksAfterSettling(t *testing.T, s *stack.Stack, tpl *coupon.Template, users []int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		inOutbox := s.Redis.XLen(s.Ctx, keys.Outbox(tpl.ID)).Val()
		open, err := s.DB.StockBatch.Query().Where(stockbatch.TemplateID(tpl.ID), stockbatch.StateEQ(stockbatch.StateOPEN)).Count(s.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		if inOutbox == 0 && open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the outbox still holds %d claims and %d stock batches are OPEN", inOutbox, open)
		}
		time.Sleep(20 * time.Millisecond)
	}
	rows, row, held := mysqlBooks(t, s, tpl.ID, tpl.LimitPerPerson())
	redisStock, _ := s.Redis.HGet(s.Ctx, keys.Template(tpl.ID), "stock").Int()
	if row.Stock+len(rows) != row.TotalStock || redisStock != row.Stock {
		t.Fatalf("books: DB stock %d + %d coupons vs total %d; Redis stock %d", row.Stock, len(rows), row.TotalStock, redisStock)
	}
	for _, u := range users {
		n, _ := s.Redis.HGet(s.Ctx, keys.ClaimCounter(tpl.ID, u), "n").Int()
		if n != held[u] {
			t.Fatalf("user %d: Redis counts %d coupons, MySQL has %d (a leaked limit)", u, n, held[u])
		}
	}
}

// Sync mode, clients that give up after a few milliseconds: every claim the script accepted is
// finished (by the request or, when it went away, by the persister), never leaked: no unit of
// stock and no user's limit is lost, whatever moment the client left at.
func TestSyncClaimsSurviveClientTimeouts(t *testing.T) {
	s := stack.New(t, "claim", "sync_timeouts", stack.Options{
		Config: services.Config{Redeem: claim.Config{Mode: claim.ModeSync, KickEvery: 10 * time.Millisecond}},
		Worker: true, Kick: true,
	})
	tpl := s.Template(t, 200, 1, nil)
	users := make([]int64, 150)
	var wg sync.WaitGroup
	var timedOut, answered int64
	var mu sync.Mutex
	for i := range users {
		users[i] = int64(5000 + i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(s.Ctx, time.Duration(rand.IntN(30))*time.Millisecond)
			defer cancel()
			_, err := s.Redeemer.Redeem(ctx, users[i], tpl.ID, "")
			mu.Lock()
			defer mu.Unlock()
			if errors.Is(err, context.DeadlineExceeded) {
				timedOut++
			} else {
				answered++
			}
		}()
	}
	wg.Wait()
	t.Logf("%d claims timed out on the client, %d answered", timedOut, answered)
	booksAfterSettling(t, s, tpl, users)
}

// When Redis loses a user's counter (eviction, failover, a power loss), MySQL still enforces the
// per-person limit: the repeated claim ends FAILED LIMIT_REACHED, its stock goes back to Redis, and
// the counter is corrected so Redis refuses the next one itself.
func TestLimitHoldsWhenRedisLosesTheCounter(t *testing.T) {
	for _, mode := range []claim.Mode{claim.ModeAsync, claim.ModeSync} {
		t.Run(string(mode), func(t *testing.T) {
			e := newRedeemEnv(t, "limit_lost_"+string(mode), claim.Config{Mode: mode})
			tpl := e.Template(t, 10, 1, nil)
			first, err := e.redeemer.Redeem(e.Ctx, 77, tpl.ID, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
				t.Fatal(err)
			}
			e.Redis.Del(e.Ctx, keys.ClaimCounter(tpl.ID, 77)) // Redis forgets the user's claim
			second, err := e.redeemer.Redeem(e.Ctx, 77, tpl.ID, "")
			switch mode {
			case claim.ModeSync:
				if codeOf(err) != coupon.CodeLimitReached {
					t.Fatalf("second sync claim: %+v, %v; want LIMIT_REACHED", second, err)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
					t.Fatal(err)
				}
				red, err := e.redeemer.Redemption(e.Ctx, 77, second.ID)
				if err != nil || red.Status != claim.RedemptionFailed || *red.FailureReason != claim.ReasonLimitReached {
					t.Fatalf("second redemption = %+v, %v; want FAILED (limit)", red, err)
				}
			}
			if n := len(e.coupons(t, tpl.ID)); n != 1 {
				t.Fatalf("user holds %d coupons, limit 1", n)
			}
			if got := e.redisStock(t, tpl.ID); got != 9 || e.dbStock(t, tpl.ID) != 9 {
				t.Fatalf("stock: Redis %d, DB %d; want 9 and 9", got, e.dbStock(t, tpl.ID))
			}
			if _, err := e.redeemer.Redeem(e.Ctx, 77, tpl.ID, ""); codeOf(err) != coupon.CodeLimitReached {
				t.Fatalf("third claim: %v; want LIMIT_REACHED from Redis (counter corrected)", err)
			}
			if red, err := e.redeemer.Redemption(e.Ctx, 77, first.ID); err != nil || red.Status != claim.RedemptionIssued {
				t.Fatalf("first redemption = %+v, %v", red, err)
			}
		})
	}
}

// The template hash is evicted, and rebuilt, at every step of every batch while the outbox drains:
// each rebuild shows exactly the stock the claims left (database stock less the claims MySQL does
// not hold yet), never a claim counted twice or not at all.
func TestCacheRebuildAtEveryStepOfABatchIsExact(t *testing.T) {
	e := newRedeemEnv(t, "rebuild_steps", claim.Config{})
	tpl := e.Template(t, 100, 1, nil)
	users := make([]int64, 30)
	for i := range users {
		users[i] = int64(900 + i)
	}
	e.claimAll(t, tpl.ID, users...)
	steps := 0
	e.persister.OnStep(func(step string) {
		steps++
		if err := e.Cache.Invalidate(e.Ctx, tpl.ID); err != nil {
			t.Fatal(err)
		}
		got, err := e.Cache.Get(e.Ctx, tpl.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Stock != 70 {
			t.Fatalf("rebuilt after %s: stock %d, want 70 (100 less 30 claims)", step, got.Stock)
		}
	})
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if steps != 25 { // 5 batches of 7 or fewer, 5 steps each (reserved, written, committed, after-commit, acked)
		t.Fatalf("%d steps observed, want 25", steps)
	}
	if e.dbStock(t, tpl.ID) != 70 || e.redisStock(t, tpl.ID) != 70 {
		t.Fatalf("stock: DB %d, Redis %d; want 70 and 70", e.dbStock(t, tpl.ID), e.redisStock(t, tpl.ID))
	}
}

// After Redis lost a claim's answer (its request key and the user's counter), a retry with the same
// requestId ends with the coupon of the first answer: no second coupon, no stock taken.
func TestRetryAfterRedisLostTheAnswerEndsWithTheFirstCoupon(t *testing.T) {
	for _, mode := range []claim.Mode{claim.ModeAsync, claim.ModeSync} {
		t.Run(string(mode), func(t *testing.T) {
			e := newRedeemEnv(t, "lost_answer_"+string(mode), claim.Config{Mode: mode})
			tpl := e.Template(t, 10, 2, nil)
			first, err := e.redeemer.Redeem(e.Ctx, 5, tpl.ID, "r-1")
			if err != nil {
				t.Fatal(err)
			}
			e.claimAll(t, tpl.ID, 6, 7) // others, without requestIds, in the same batches
			if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
				t.Fatal(err)
			}
			want, err := e.redeemer.Redemption(e.Ctx, 5, first.ID)
			if err != nil || want.Status != claim.RedemptionIssued {
				t.Fatalf("first redemption = %+v, %v", want, err)
			}
			e.Redis.Del(e.Ctx, keys.Request(tpl.ID, 5, "r-1"), keys.ClaimCounter(tpl.ID, 5)) // Redis forgets
			retry, err := e.redeemer.Redeem(e.Ctx, 5, tpl.ID, "r-1")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
				t.Fatal(err)
			}
			got, err := e.redeemer.Redemption(e.Ctx, 5, retry.ID)
			if err != nil || got.Status != claim.RedemptionIssued || got.Coupon.ID != want.Coupon.ID {
				t.Fatalf("retry's redemption = %+v, %v; want ISSUED with coupon %d", got, err, want.Coupon.ID)
			}
			if mode == claim.ModeSync && (retry.Status != claim.RedemptionIssued || retry.Coupon.ID != want.Coupon.ID) {
				t.Fatalf("sync retry answered %+v; want ISSUED with coupon %d", retry, want.Coupon.ID)
			}
			if n := len(e.coupons(t, tpl.ID)); n != 3 {
				t.Fatalf("%d coupons, want 3 (one per user)", n)
			}
			if e.dbStock(t, tpl.ID) != 7 || e.redisStock(t, tpl.ID) != 7 {
				t.Fatalf("stock: DB %d, Redis %d; want 7 and 7", e.dbStock(t, tpl.ID), e.redisStock(t, tpl.ID))
			}
		})
	}
}

// A retry that Redis refuses for stock (its first answer lost) finds the first claim's coupon.
func TestRetryRefusedForStockFindsTheFirstCoupon(t *testing.T) {
	e := newRedeemEnv(t, "lost_answer_stock", claim.Config{})
	tpl := e.Template(t, 1, 1, nil)
	first, err := e.redeemer.Redeem(e.Ctx, 8, tpl.ID, "r-9")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	e.Redis.Del(e.Ctx, keys.Request(tpl.ID, 8, "r-9"))
	retry, err := e.redeemer.Redeem(e.Ctx, 8, tpl.ID, "r-9")
	if err != nil || retry.Status != claim.RedemptionIssued || retry.ID != first.ID {
		t.Fatalf("retry = %+v, %v; want ISSUED redemption %s", retry, err, first.ID)
	}
}

// Redis loses its last second (a power loss under appendfsync everysec): claims it had accepted
// and not yet handed to MySQL vanish from the outbox with their redemption keys. They are counted
// and recorded FAILED with a reason, never left unknown; claims MySQL holds are untouched.
func TestClaimsLostByRedisAreRecorded(t *testing.T) {
	e := newRedeemEnv(t, "lost_claims", claim.Config{})
	tpl := e.Template(t, 20, 1, nil)
	kept := e.claimAll(t, tpl.ID, 1, 2)
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	lost := e.claimAll(t, tpl.ID, 3, 4, 5)
	pending := e.claimAll(t, tpl.ID, 6) // survives: its redemption key and entry are still there
	// The rewind: the last three claims' writes are gone (their entries and redemption keys).
	entries := e.Redis.XRange(e.Ctx, keys.Outbox(tpl.ID), "-", "+").Val()
	for i, rid := range lost {
		e.Redis.Del(e.Ctx, keys.Redemption(tpl.ID, rid))
		e.Redis.XDel(e.Ctx, keys.Outbox(tpl.ID), entries[i].ID)
	}
	before := promtest.ToFloat64(claim.LostTotal)
	n, err := e.redeemer.RecordLost(e.Ctx)
	if err != nil || n != 3 || promtest.ToFloat64(claim.LostTotal)-before != 3 {
		t.Fatalf("recorded %d lost, %v (metric +%v); want 3", n, err, promtest.ToFloat64(claim.LostTotal)-before)
	}
	for i, rid := range lost {
		red, err := e.redeemer.Redemption(e.Ctx, int64(3+i), rid)
		if err != nil || red.Status != claim.RedemptionFailed || *red.FailureReason != claim.ReasonLost {
			t.Fatalf("lost redemption %s = %+v, %v; want FAILED (lost)", rid, red, err)
		}
	}
	for i, rid := range append(kept, pending...) {
		user := []int64{1, 2, 6}[i]
		if red, err := e.redeemer.Redemption(e.Ctx, user, rid); err != nil || red.Status == claim.RedemptionFailed {
			t.Fatalf("redemption %s of user %d = %+v, %v; want it untouched", rid, user, red, err)
		}
	}
	if n, _ := e.redeemer.RecordLost(e.Ctx); n != 0 {
		t.Fatalf("a second check recorded %d more", n)
	}
}

// After a Redis restart that lost the last second, replays get their first answers again (a lost
// claim's redemption, a refusal's code) and counters catch up with the coupons MySQL holds.
func TestRestartRepairsAnswersAndCounters(t *testing.T) {
	e := newRedeemEnv(t, "restart_repair", claim.Config{})
	tpl := e.Template(t, 2, 1, nil)
	held, err := e.redeemer.Redeem(e.Ctx, 1, tpl.ID, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	lost, err := e.redeemer.Redeem(e.Ctx, 2, tpl.ID, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.redeemer.Redeem(e.Ctx, 3, tpl.ID, "c"); codeOf(err) != coupon.CodeOutOfStock {
		t.Fatalf("third claim: %v, want OUT_OF_STOCK", err)
	}
	// The rewind: every request key, user 1's counter, user 2's claim (entry and redemption key).
	for _, k := range []string{keys.Request(tpl.ID, 1, "a"), keys.Request(tpl.ID, 2, "b"), keys.Request(tpl.ID, 3, "c"),
		keys.ClaimCounter(tpl.ID, 1), keys.Redemption(tpl.ID, lost.ID)} {
		e.Redis.Del(e.Ctx, k)
	}
	e.Redis.XTrimMaxLen(e.Ctx, keys.Outbox(tpl.ID), 0)
	e.Redis.HIncrBy(e.Ctx, keys.Template(tpl.ID), "stock", 1) // user 2's unit is back in Redis
	if err := e.redeemer.RepairAfterRestart(e.Ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.Redis.HGet(e.Ctx, keys.ClaimCounter(tpl.ID, 1), "n").Int(); n != 1 {
		t.Fatalf("user 1's counter = %d, want 1 (the coupon MySQL holds)", n)
	}
	for _, c := range []struct {
		user   int64
		req    string
		id     string
		status claim.RedemptionStatus
	}{{1, "a", held.ID, claim.RedemptionIssued}, {2, "b", lost.ID, claim.RedemptionFailed}} {
		again, err := e.redeemer.Redeem(e.Ctx, c.user, tpl.ID, c.req)
		if err != nil || again.ID != c.id || again.Status != c.status {
			t.Fatalf("replay of %q = %+v, %v; want %s %s", c.req, again, err, c.id, c.status)
		}
	}
	if _, err := e.redeemer.Redeem(e.Ctx, 3, tpl.ID, "c"); codeOf(err) != coupon.CodeOutOfStock {
		t.Fatalf("replay of the refusal: %v, want OUT_OF_STOCK again", err)
	}
}

// A sync claim answered PENDING (its group's write could not finish: here its T1 is put off behind
// another open batch) that MySQL later refuses (its user holds the limit already; Redis had lost
// the counter) is replayed with its first answer: the same redemption, now FAILED with the reason,
// never a bare refusal it was not given. A sync claim answered with a refusal is replayed with
// that refusal.
func TestSyncReplayAnswersWhatTheClaimWasAnswered(t *testing.T) {
	e := newRedeemEnv(t, "sync_replay", claim.Config{Mode: claim.ModeSync})
	tpl := e.Template(t, 10, 1, nil)
	if _, err := e.redeemer.Redeem(e.Ctx, 77, tpl.ID, "first"); err != nil {
		t.Fatal(err)
	}
	// Another batch holds the database's last 9 units, OPEN: a T1 short of stock waits for it.
	items := make([]issue.Item, 9)
	for i := range items {
		items[i].UserID, items[i].RedemptionID = int64(1000+i), fmt.Sprintf("other-%d", i)
	}
	other, err := issue.Reserve(e.Ctx, e.DB, issue.ReserveSpec{TemplateID: tpl.ID, ShopNumber: tpl.ShopNumber, Source: stockbatch.SourceCLAIM, Items: items})
	if err != nil {
		t.Fatal(err)
	}
	e.Redis.Del(e.Ctx, keys.ClaimCounter(tpl.ID, 77)) // Redis forgets the user's coupon
	pending, err := e.redeemer.Redeem(e.Ctx, 77, tpl.ID, "second")
	if err != nil || pending.Status != claim.RedemptionPending {
		t.Fatalf("claim whose T1 was put off: %+v, %v; want PENDING", pending, err)
	}
	if err := issue.Settle(e.Ctx, e.DB, other.Header, issue.Settlement{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	again, err := e.redeemer.Redeem(e.Ctx, 77, tpl.ID, "second")
	if err != nil || again.ID != pending.ID || again.Status != claim.RedemptionFailed || *again.FailureReason != claim.ReasonLimitReached {
		t.Fatalf("replay of the PENDING claim: %+v, %v; want redemption %s FAILED (limit)", again, err, pending.ID)
	}
	e.Redis.Del(e.Ctx, keys.ClaimCounter(tpl.ID, 77))
	if _, err := e.redeemer.Redeem(e.Ctx, 77, tpl.ID, "third"); codeOf(err) != coupon.CodeLimitReached {
		t.Fatalf("third claim: %v; want LIMIT_REACHED (MySQL refused it in the request)", err)
	}
	if red, err := e.redeemer.Redeem(e.Ctx, 77, tpl.ID, "third"); codeOf(err) != coupon.CodeLimitReached {
		t.Fatalf("replay of the refused claim: %+v, %v; want LIMIT_REACHED again", red, err)
	}
}

// A Redis power loss repaired while a persister's batch holding the lost claims is between its
// read of earlier refusals and its commit (here its coupon INSERT waits behind another
// transaction's lock): the repair fences the batch before deciding, so the claims end FAILED and
// the batch's T2 fails (issue.ErrFenced) instead of also writing their coupons. No claim ends both ways.
func TestLossRepairFencesABatchInFlight(t *testing.T) {
	e := newRedeemEnv(t, "loss_fence", claim.Config{})
	tpl := e.Template(t, 20, 1, nil)
	rids := e.claimAll(t, tpl.ID, 1, 2, 3)
	blocker, err := e.DB.Tx(e.Ctx) // holds the gap the first coupon's redemption id goes into
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Rollback()
	rows, err := blocker.QueryContext(e.Ctx, "SELECT id FROM user_coupon WHERE redemption_id = ? FOR UPDATE", rids[0])
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	reserved := make(chan struct{})
	e.persister.OnStep(func(step string) {
		if step == "reserved" {
			close(reserved)
		}
	})
	defer e.persister.OnStep(nil)
	drained := make(chan error, 1)
	go func() {
		_, err := e.persister.Drain(e.Ctx, tpl.ID)
		drained <- err
	}()
	<-reserved
	time.Sleep(300 * time.Millisecond) // T2 has read the users' coupons and refusals and waits at its INSERT
	entries := e.Redis.XRange(e.Ctx, keys.Outbox(tpl.ID), "-", "+").Val()
	for i, rid := range rids { // the power loss: the claims' redemption keys and entries are gone
		e.Redis.Del(e.Ctx, keys.Redemption(tpl.ID, rid))
		e.Redis.XDel(e.Ctx, keys.Outbox(tpl.ID), entries[i].ID)
	}
	if n, err := e.redeemer.RecordLost(e.Ctx); err != nil || n != 3 {
		t.Fatalf("recorded %d lost (%v), want 3", n, err)
	}
	if err := blocker.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-drained; !errors.Is(err, issue.ErrFenced) {
		t.Fatalf("the batch's T2 after the repair: %v, want ErrFenced", err)
	}
	if n := len(e.coupons(t, tpl.ID)); n != 0 {
		t.Fatalf("%d coupons written for claims recorded lost", n)
	}
	for i, rid := range rids {
		red, err := e.redeemer.Redemption(e.Ctx, int64(1+i), rid)
		if err != nil || red.Status != claim.RedemptionFailed || *red.FailureReason != claim.ReasonLost {
			t.Fatalf("redemption %s = %+v, %v; want FAILED (lost)", rid, red, err)
		}
	}
}
