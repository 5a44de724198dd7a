package claim_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontemplatelog"
	"coupond/ent/stockbatch"
	"coupond/services"
	"coupond/store"
	"coupond/testutil/stack"

	promtest "github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
)

// claimAll makes each user claim once and returns the accepted redemption ids.
func (e *redeemEnv) claimAll(t *testing.T, tplID int64, users ...int64) []string {
	t.Helper()
	var rids []string
	for _, u := range users {
		red, err := e.redeemer.Redeem(e.Ctx, u, tplID, "")
		if err != nil {
			t.Fatalf("user %d: %v", u, err)
		}
		rids = append(rids, red.ID)
	}
	return rids
}

func (e *redeemEnv) checkPersistedOnce(t *testing.T, tpl *coupon.Template, users []int64, rids []string) {
	t.Helper()
	coupons := e.coupons(t, tpl.ID)
	if len(coupons) != len(rids) {
		t.Fatalf("%d coupons, want %d", len(coupons), len(rids))
	}
	if got := e.dbStock(t, tpl.ID); got != tpl.Stock-len(rids) {
		t.Fatalf("DB stock = %d, want %d", got, tpl.Stock-len(rids))
	}
	for i, rid := range rids {
		red, err := e.redeemer.Redemption(e.Ctx, users[i], rid)
		if err != nil || red.Status != claim.RedemptionIssued || red.Coupon.UserID != users[i] {
			t.Fatalf("redemption %s = %+v, %v; want ISSUED for user %d", rid, red, err, users[i])
		}
	}
	if n, _ := e.Redis.XLen(e.Ctx, keys.Outbox(tpl.ID)).Result(); n != 0 {
		t.Fatalf("outbox still holds %d entries", n)
	}
	pending, err := e.Redis.XPending(e.Ctx, keys.Outbox(tpl.ID), claim.OutboxGroup).Result()
	if err != nil || pending.Count != 0 {
		t.Fatalf("pending entries = %+v, %v", pending, err)
	}
}

func TestPersisterCrashBeforeCommitIsReclaimed(t *testing.T) {
	e := newRedeemEnv(t, "crash_before", claim.Config{})
	tpl := e.Template(t, 100, 1, nil)
	users := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	rids := e.claimAll(t, tpl.ID, users...)
	// A persister reads the claims and dies before its transaction: they stay pending under it.
	if err := e.Redis.XGroupCreateMkStream(e.Ctx, keys.Outbox(tpl.ID), claim.OutboxGroup, "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.Redis.XReadGroup(e.Ctx, &redis.XReadGroupArgs{Group: claim.OutboxGroup, Consumer: "crashed",
		Streams: []string{keys.Outbox(tpl.ID), ">"}, Count: 100, Block: -1}).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // longer than ClaimIdle: the crashed persister's claims are up for grabs
	n, err := e.persister.Drain(e.Ctx, tpl.ID)
	if err != nil || n != len(rids) {
		t.Fatalf("drain = %d, %v; want %d reclaimed", n, err, len(rids))
	}
	e.checkPersistedOnce(t, tpl, users, rids)
}

func TestPersisterCrashAfterCommitBeforeAckPersistsOnce(t *testing.T) {
	e := newRedeemEnv(t, "crash_after", claim.Config{})
	tpl := e.Template(t, 100, 1, nil)
	users := []int64{11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}
	rids := e.claimAll(t, tpl.ID, users...)
	// A persister reads the claims, commits them, and dies before its after-commit work and XACK.
	if err := e.Redis.XGroupCreateMkStream(e.Ctx, keys.Outbox(tpl.ID), claim.OutboxGroup, "0").Err(); err != nil {
		t.Fatal(err)
	}
	streams, err := e.Redis.XReadGroup(e.Ctx, &redis.XReadGroupArgs{Group: claim.OutboxGroup, Consumer: "crashed",
		Streams: []string{keys.Outbox(tpl.ID), ">"}, Count: 100, Block: -1}).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.persister.CommitMessages(e.Ctx, tpl.ID, streams[0].Messages); err != nil {
		t.Fatal(err)
	}
	if got := len(e.coupons(t, tpl.ID)); got != len(rids) {
		t.Fatalf("after the crashed commit: %d coupons", got)
	}
	// The restarted persister takes the pending entries over and replays them.
	time.Sleep(5 * time.Millisecond)
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	e.checkPersistedOnce(t, tpl, users, rids)
	// Entries delivered twice (a second XADD of the same claims) are also recognised.
	for _, m := range streams[0].Messages[:3] {
		e.Redis.XAdd(e.Ctx, &redis.XAddArgs{Stream: keys.Outbox(tpl.ID), Values: m.Values})
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	e.checkPersistedOnce(t, tpl, users, rids)
}

// TestPersisterReadsCouponsWholeOnlyForReplays: batches of new claims (a user's first coupon, and
// a second one next to it) commit without reading the users' coupons (written first, on one user
// shard); a batch holding claims already
// persisted is rolled back and done again reading the coupons whole, and is persisted once.
func TestPersisterReadsCouponsWholeOnlyForReplays(t *testing.T) {
	e := newRedeemEnv(t, "reread", claim.Config{})
	tpl := e.Template(t, 100, 2, nil)
	users := []int64{31, 32, 33, 34, 35}
	before := claim.Rereads()
	rids := e.claimAll(t, tpl.ID, users...)
	first, err := e.Redis.XRange(e.Ctx, keys.Outbox(tpl.ID), "-", "+").Result()
	if err != nil || len(first) != len(users) {
		t.Fatalf("outbox = %d entries, %v", len(first), err)
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	rids = append(rids, e.claimAll(t, tpl.ID, users...)...) // each user's second coupon: slot 2
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if n := claim.Rereads() - before; n != 0 {
		t.Fatalf("new claims were read whole %v times; want 0", n)
	}
	e.checkPersistedOnce(t, tpl, append(users, users...), rids)

	for _, m := range first[:3] { // delivered again
		e.Redis.XAdd(e.Ctx, &redis.XAddArgs{Stream: keys.Outbox(tpl.ID), Values: m.Values})
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if n := claim.Rereads() - before; n != 1 {
		t.Fatalf("the replayed batch was read whole %v times; want 1", n)
	}
	e.checkPersistedOnce(t, tpl, append(users, users...), rids)
}

func TestDriftFailsTheSurplusAndGivesCountersBack(t *testing.T) {
	e := newRedeemEnv(t, "drift", claim.Config{})
	tpl := e.Template(t, 10, 1, nil)
	users := []int64{31, 32, 33, 34, 35, 36, 37, 38, 39, 40}
	driftBefore, persistedBefore := promtest.ToFloat64(claim.DriftTotal), promtest.ToFloat64(claim.PersistedTotal)
	okBefore := promtest.ToFloat64(claim.ClaimsTotal.WithLabelValues("OK"))
	rids := e.claimAll(t, tpl.ID, users...)
	// The database lost 4 units somewhere (manual edit, another writer): only 6 remain.
	if err := e.DB.CouponTemplate.UpdateOneID(tpl.ID).SetStock(6).Exec(e.Ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if got := e.dbStock(t, tpl.ID); got != 0 {
		t.Fatalf("DB stock = %d, want 0", got)
	}
	var issued, failed int
	for i, rid := range rids {
		red, err := e.redeemer.Redemption(e.Ctx, users[i], rid)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := e.Redis.HGet(e.Ctx, keys.ClaimCounter(tpl.ID, users[i]), "n").Int()
		switch red.Status {
		case claim.RedemptionIssued:
			issued++
			if n != 1 {
				t.Fatalf("issued user %d counter = %d, want 1", users[i], n)
			}
		case claim.RedemptionFailed:
			failed++
			if red.FailureReason == nil || *red.FailureReason != claim.ReasonStockDrift || n != 0 {
				t.Fatalf("failed redemption %+v, counter %d; want the drift reason and the counter given back", red, n)
			}
		default:
			t.Fatalf("redemption %s is %s", rid, red.Status)
		}
	}
	if issued != 6 || failed != 4 || len(e.coupons(t, tpl.ID)) != 6 {
		t.Fatalf("issued %d, failed %d; want 6 and 4", issued, failed)
	}
	if d, p, ok := promtest.ToFloat64(claim.DriftTotal)-driftBefore, promtest.ToFloat64(claim.PersistedTotal)-persistedBefore,
		promtest.ToFloat64(claim.ClaimsTotal.WithLabelValues("OK"))-okBefore; d != 4 || p != 6 || ok != 10 {
		t.Fatalf("metrics: drift +%v, persisted +%v, claims OK +%v; want 4, 6, 10", d, p, ok)
	}
	logs, err := e.DB.CouponTemplateLog.Query().Where(coupontemplatelog.TemplateID(tpl.ID), coupontemplatelog.Action(template.ActionStockDrift)).All(e.Ctx)
	var recorded float64
	for _, l := range logs {
		recorded += l.After["failedClaims"].(float64)
	}
	if err != nil || recorded != 4 {
		t.Fatalf("drift records = %+v, %v; want 4 failed claims recorded", logs, err)
	}
	// A failed user may claim again (counter given back), and is refused only by stock.
	if _, err := e.redeemer.Redeem(e.Ctx, users[9], tpl.ID, ""); codeOf(err) != coupon.CodeOutOfStock {
		t.Fatalf("retry after drift: %v, want OUT_OF_STOCK (Redis has no stock either)", err)
	}
}

// TestReplayedRefusalStaysRefused: claims MySQL refused for drift, delivered again (a Redis
// restored from an older AOF) once the database has stock, stay FAILED with no coupon. The batch
// of them alone is one a persister writes without reading the users' coupons (new slots, units in
// budget): only their recorded refusals, read because the template has some, stop it.
func TestReplayedRefusalStaysRefused(t *testing.T) {
	e := newRedeemEnv(t, "replayed_refusal", claim.Config{})
	tpl := e.Template(t, 10, 1, nil)
	users := []int64{41, 42, 43, 44, 45, 46, 47, 48, 49, 50}
	rids := e.claimAll(t, tpl.ID, users...)
	entries, err := e.Redis.XRange(e.Ctx, keys.Outbox(tpl.ID), "-", "+").Result()
	if err != nil || len(entries) != len(users) {
		t.Fatalf("outbox = %d entries, %v", len(entries), err)
	}
	if err := e.DB.CouponTemplate.UpdateOneID(tpl.ID).SetStock(6).Exec(e.Ctx); err != nil { // 4 units lost
		t.Fatal(err)
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	var failed []redis.XMessage
	for i, rid := range rids {
		red, err := e.redeemer.Redemption(e.Ctx, users[i], rid)
		if err != nil {
			t.Fatal(err)
		}
		if red.Status == claim.RedemptionFailed {
			failed = append(failed, entries[i])
		}
	}
	if len(failed) != 4 {
		t.Fatalf("%d claims failed, want 4", len(failed))
	}
	if err := e.DB.CouponTemplate.UpdateOneID(tpl.ID).SetStock(10).Exec(e.Ctx); err != nil { // units enough for a replay
		t.Fatal(err)
	}
	for _, m := range failed {
		e.Redis.XAdd(e.Ctx, &redis.XAddArgs{Stream: keys.Outbox(tpl.ID), Values: m.Values})
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(e.coupons(t, tpl.ID)); n != 6 {
		t.Fatalf("%d coupons after the replay, want the 6 issued before", n)
	}
	for i, rid := range rids {
		red, err := e.redeemer.Redemption(e.Ctx, users[i], rid)
		if err != nil {
			t.Fatal(err)
		}
		if was := slices.ContainsFunc(failed, func(m redis.XMessage) bool { return m.ID == entries[i].ID }); was != (red.Status == claim.RedemptionFailed) {
			t.Fatalf("redemption %s is %s after the replay; failed before: %v", rid, red.Status, was)
		}
	}
}

func TestDrainStopsAfterMaxRun(t *testing.T) {
	e := newRedeemEnv(t, "max_run", claim.Config{})
	tpl := e.Template(t, 100, 1, nil)
	users := make([]int64, 20)
	for i := range users {
		users[i] = int64(200 + i)
	}
	rids := e.claimAll(t, tpl.ID, users...)
	short := claim.NewPersister(e.DB, e.Redis, e.Issuer, e.Cache, claim.PersistConfig{BatchSize: 7, MaxRun: time.Nanosecond})
	if n, err := short.Drain(e.Ctx, tpl.ID); err != nil || n != 7 {
		t.Fatalf("bounded drain = %d, %v; want one batch of 7", n, err)
	}
	if _, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	e.checkPersistedOnce(t, tpl, users, rids)
}

// The drain index keeps a template whose cache hash was evicted mid-sale (its claims may still
// arrive), and lets go of one that ended.
func TestDrainIndexKeepsOpenTemplates(t *testing.T) {
	e := newRedeemEnv(t, "index", claim.Config{})
	open, ended := e.Template(t, 10, 1, nil), e.Template(t, 10, 1, nil)
	for _, id := range []int64{open.ID, ended.ID} {
		e.claimAll(t, id, 1)
		if _, err := e.persister.Drain(e.Ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := e.Cache.Invalidate(e.Ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Templates.Terminate(e.Ctx, stack.Merchant, ended.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.persister.NonEmptyOutboxes(e.Ctx); err != nil {
		t.Fatal(err)
	}
	if !e.Redis.SIsMember(e.Ctx, keys.OutboxIndex(), open.ID).Val() {
		t.Fatal("an open template whose hash was evicted left the drain index")
	}
	if e.Redis.SIsMember(e.Ctx, keys.OutboxIndex(), ended.ID).Val() {
		t.Fatal("an ended template with an empty outbox stayed in the drain index")
	}
}

// TestPersisterLingersWhileClaimsFlow: after a batch of at least 64 claims (an eighth of the
// batch size here), short of a full one, the persister waits Linger before reading again, so
// claims arriving meanwhile make one batch, not many; a trickle (fewer claims) is persisted
// at once. Each batch is one stock_batch header.
func TestPersisterLingersWhileClaimsFlow(t *testing.T) {
	const linger = time.Second
	s := stack.New(t, "claim", "linger", stack.Options{Config: services.Config{
		Persist: claim.PersistConfig{BatchSize: 512, Linger: linger, ClaimIdle: time.Millisecond},
	}})
	e := &redeemEnv{Stack: s, redeemer: s.Redeemer, persister: s.Persister}
	tpl := e.Template(t, 1000, 1000, nil)
	headers := func() int {
		n, err := e.DB.StockBatch.Query().Where(stockbatch.TemplateID(tpl.ID)).Count(e.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	e.claimAll(t, tpl.ID, 7, 7, 7) // a trickle
	start := time.Now()
	if n, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil || n != 3 {
		t.Fatalf("drain = %d, %v; want 3", n, err)
	}
	if took := time.Since(start); took >= linger/2 {
		t.Fatalf("a trickle of 3 claims took %v to persist; want no linger", took)
	}

	first := make([]int64, 100)
	for i := range first {
		first[i] = 7
	}
	e.claimAll(t, tpl.ID, first...)
	var more sync.WaitGroup
	e.persister.OnStep(func(step string) {
		if step != "acked" || headers() != 2 {
			return
		}
		more.Go(func() { // 100 claims over about 200 ms, while the persister lingers
			for range 100 {
				if _, err := e.redeemer.Redeem(e.Ctx, 8, tpl.ID, ""); err != nil {
					t.Error(err)
				}
				time.Sleep(2 * time.Millisecond)
			}
		})
	})
	t.Cleanup(func() { e.persister.OnStep(nil) })
	if n, err := e.persister.Drain(e.Ctx, tpl.ID); err != nil || n != 200 {
		t.Fatalf("drain = %d, %v; want 200", n, err)
	}
	more.Wait()
	if n := headers(); n != 3 {
		t.Fatalf("%d batches for a trickle of 3 and two flows of 100 claims; want 3 (the second flow in one batch)", n)
	}
	if n := len(e.coupons(t, tpl.ID)); n != 203 {
		t.Fatalf("%d coupons, want 203", n)
	}
}

// TestPriorFailuresReadsEveryChunk: the earlier refusals of a batch larger than one read's chunk
// (500 claims) are all found, whichever chunk names them, and claims without one are not.
func TestPriorFailuresReadsEveryChunk(t *testing.T) {
	e := newRedeemEnv(t, "prior_chunks", claim.Config{})
	const claims = 1234
	users, rids := make([]int64, claims), make([]string, claims)
	var failed []*ent.RedemptionFailureCreate
	for i := range claims {
		users[i], rids[i] = int64(1000+i%700), fmt.Sprintf("9-%d", i) // users repeat across chunks
		if i%3 == 0 {
			failed = append(failed, e.DB.RedemptionFailure.Create().SetID(int64(i+1)).SetUserID(users[i]).SetTemplateID(9).
				SetRedemptionID(rids[i]).SetReason(claim.ReasonStockDrift))
		}
	}
	if err := e.DB.RedemptionFailure.CreateBulk(failed...).Exec(e.Ctx); err != nil {
		t.Fatal(err)
	}
	var got map[string]issue.Refusal
	err := store.WithTx(e.Ctx, e.DB, func(tx *ent.Tx) error {
		var err error
		got, err = claim.PriorFailures(e.Ctx, tx, users, rids)
		return err
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(failed) {
		t.Fatalf("%d earlier refusals found, want %d", len(got), len(failed))
	}
	for i, rid := range rids {
		if r, ok := got[rid]; ok != (i%3 == 0) || ok && r.Reason != claim.ReasonStockDrift {
			t.Fatalf("claim %d (%s): found %v %+v", i, rid, ok, r)
		}
	}
}
