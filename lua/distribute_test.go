package lua

import (
	"context"
	"strconv"
	"testing"
	"time"

	"coupond/testutil"
)

func distKeys(tid, task int64) DistributeKeys {
	tag := ns + "{t" + strconv.FormatInt(tid, 10) + "}"
	return DistributeKeys{
		Template: tag + ":tpl",
		Journal:  tag + ":dist:" + strconv.FormatInt(task, 10),
		Journals: tag + ":dists",
		Claims:   func(u int64) string { return tag + ":u:" + strconv.FormatInt(u, 10) },
	}
}

// A batch deducts stock and counts each user with the claim script's counter and sequence; a
// replay of the same batch returns the same outcomes and deducts nothing more; its after-commit gives
// back what MySQL refused once.
func TestDistributeDeductReplayAfterCommit(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	const tid, task = 71, 9001
	putTemplate(t, rdb, tid, activeTpl(3, 1))
	k := distKeys(tid, task)
	rdb.HSet(ctx, k.Template, "epoch", 7) // a reconciliation's snapshot set it: the batch carries it
	// user 11 already holds its one coupon through a claim.
	mustRedeem(t, rdb, redeemKeys(tid, 11, "", "c-1"), asyncArgs(11, "c-1"))
	rows := []DistributeRow{{2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}}
	res, err := Distribute(ctx, rdb, k, 0, time.Now(), rows, false)
	if err != nil || res.Status != DistributeDeducted {
		t.Fatalf("Distribute: %v %v", res.Status, err)
	}
	out := res.Outcomes
	want := []DistributeOutcome{{DistributeOK, 1, 7}, {DistributeLimitReached, 0, 7}, {DistributeOK, 1, 7}, {DistributeOutOfStock, 0, 7}, {DistributeOutOfStock, 0, 7}}
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("row %d: %+v, want %+v", rows[i].Row, out[i], want[i])
		}
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 0 {
		t.Fatalf("stock %d, want 0", s)
	}
	again, err := Distribute(ctx, rdb, k, 0, time.Now(), rows, true) // a replay, even borrowing, answers the journal
	if err != nil || again.Status != DistributeReplayed || len(again.Outcomes) != len(out) || again.Outcomes[0] != out[0] {
		t.Fatalf("replay: %+v %v", again, err)
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 0 {
		t.Fatalf("replay deducted again: stock %d", s)
	}
	// The next batch is deducted while this one is still in flight: both are journaled.
	if next, _ := Distribute(ctx, rdb, k, 6, time.Now(), []DistributeRow{{7, 15}}, false); next.Status != DistributeDeducted || next.Outcomes[0].Code != DistributeOutOfStock {
		t.Fatalf("next batch before the after-commit: %+v, want deducted, OUT_OF_STOCK", next)
	}
	js, err := ReadJournals(ctx, rdb, k.Journal)
	if err != nil || len(js) != 2 || js[0].Start != 0 || js[0].Epoch != 7 || js[1].Start != 6 || len(js[0].Rows) != 5 || js[0].Rows[2] != (JournalRow{4, 12, DistributeOK, 1}) {
		t.Fatalf("journals %+v %v", js, err)
	}
	if js[1].Rows[0] != (JournalRow{7, 15, DistributeOutOfStock, 0}) {
		t.Fatalf("journal of the batch after row 6: %+v", js[1])
	}
	if in, _ := rdb.SIsMember(ctx, k.Journals, k.Journal).Result(); !in {
		t.Fatalf("journal %s not in the set of journals in flight", k.Journal)
	}
	// MySQL refused user 12 (say, at its limit there): one unit and its counter come back, once.
	sk := AfterCommitKeys{Template: k.Template, Journal: k.Journal, Refused: []string{k.Claims(12)}, Journals: k.Journals}
	for i, want := range []bool{true, false} {
		done, err := DistributeAfterCommit(ctx, rdb, sk, 0, 1, false)
		if err != nil || done != want {
			t.Fatalf("after-commit %d: %v %v", i, done, err)
		}
	}
	if s, n := hgetInt(t, rdb, k.Template, "stock"), hgetInt(t, rdb, k.Claims(12), "n"); s != 1 || n != 0 {
		t.Fatalf("after the after-commit: stock %d, n %d; want 1 0", s, n)
	}
	if seq := hgetInt(t, rdb, k.Claims(12), "seq"); seq != 1 {
		t.Fatalf("seq %d: a receive_count must never be handed out twice", seq)
	}
	if js, _ := ReadJournals(ctx, rdb, k.Journal); len(js) != 1 || js[0].Start != 6 {
		t.Fatalf("journals after the after-commit of the batch after row 0: %+v, want only the one after row 6", js)
	}
	if in, _ := rdb.SIsMember(ctx, k.Journals, k.Journal).Result(); !in {
		t.Fatalf("the hash left the set while the batch after row 6 is still in flight")
	}
	if done, err := DistributeAfterCommit(ctx, rdb, AfterCommitKeys{Template: k.Template, Journal: k.Journal, Journals: k.Journals}, 6, 0, false); err != nil || !done {
		t.Fatalf("after-commit of the batch after row 6: %v %v", done, err)
	}
	if n, _ := rdb.SCard(ctx, k.Journals).Result(); n != 0 {
		t.Fatalf("%d journal hashes left in the set after the last after-commit", n)
	}
	if n, _ := rdb.Exists(ctx, k.Journal).Result(); n != 0 {
		t.Fatalf("the journal hash is left after its last after-commit")
	}
}

// The after-commit of a batch MySQL refused for want of stock (Redis showed more than MySQL had) deletes the
// template hash instead of giving units back, so the next lookup rebuilds it from MySQL.
func TestDistributeAfterCommitOnDriftDropsTheHash(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	const tid, task = 73, 9002
	putTemplate(t, rdb, tid, activeTpl(5, 1))
	k := distKeys(tid, task)
	if res, err := Distribute(ctx, rdb, k, 0, time.Now(), []DistributeRow{{2, 20}, {3, 21}}, false); err != nil || res.Status != DistributeDeducted {
		t.Fatalf("Distribute: %+v %v", res, err)
	}
	sk := AfterCommitKeys{Template: k.Template, Journal: k.Journal, Refused: []string{k.Claims(21)}, Journals: k.Journals}
	if done, err := DistributeAfterCommit(ctx, rdb, sk, 0, 0, true); err != nil || !done {
		t.Fatalf("after-commit: %v %v", done, err)
	}
	if n, _ := rdb.Exists(ctx, k.Template, k.Journal).Result(); n != 0 {
		t.Fatalf("%d of the template hash and journal left after a drift's after-commit", n)
	}
	if n := hgetInt(t, rdb, k.Claims(21), "n"); n != 0 {
		t.Fatalf("refused user's counter %d, want 0", n)
	}
}

// Borrowing, a stock short of the rows whose user is below the limit answers the units missing and
// writes nothing; with the units there (or not borrowing) the batch is deducted.
func TestDistributeBorrowingShortfall(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	const tid, task = 74, 9003
	putTemplate(t, rdb, tid, activeTpl(1, 1))
	k := distKeys(tid, task)
	mustRedeem(t, rdb, redeemKeys(tid, 30, "", "c-1"), asyncArgs(30, "c-1")) // user 30 at its limit; stock 0
	rows := []DistributeRow{{2, 30}, {3, 31}, {4, 32}}
	res, err := Distribute(ctx, rdb, k, 0, time.Now(), rows, true)
	if err != nil || res.Status != DistributeShort || res.Short != 2 {
		t.Fatalf("short: %+v %v; want SHORT by 2 (user 30 needs no unit)", res, err)
	}
	if n, _ := rdb.Exists(ctx, k.Journal, k.Claims(31), k.Claims(32)).Result(); n != 0 {
		t.Fatalf("a short answer wrote %d keys", n)
	}
	if n := hgetInt(t, rdb, k.Claims(30), "n"); n != 1 {
		t.Fatalf("user 30's counter %d after a short answer, want 1", n)
	}
	rdb.HIncrBy(ctx, k.Template, "stock", 1) // one borrowed: still one short
	if res, err := Distribute(ctx, rdb, k, 0, time.Now(), rows, true); err != nil || res.Status != DistributeShort || res.Short != 1 {
		t.Fatalf("still short: %+v %v; want SHORT by 1", res, err)
	}
	res, err = Distribute(ctx, rdb, k, 0, time.Now(), rows, false) // nothing left to borrow
	want := []DistributeOutcome{{DistributeLimitReached, 0, 0}, {DistributeOK, 1, 0}, {DistributeOutOfStock, 0, 0}}
	if err != nil || res.Status != DistributeDeducted || len(res.Outcomes) != 3 {
		t.Fatalf("not borrowing: %+v %v", res, err)
	}
	for i := range want {
		if res.Outcomes[i] != want[i] {
			t.Fatalf("row %d: %+v, want %+v", rows[i].Row, res.Outcomes[i], want[i])
		}
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 0 {
		t.Fatalf("stock %d, want 0", s)
	}
}

// An ended template refuses every row (journaled, so a replay says the same); a missing hash
// writes nothing.
func TestDistributeEndedAndCacheMissing(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	k := distKeys(72, 1)
	if res, err := Distribute(ctx, rdb, k, 0, time.Now(), []DistributeRow{{1, 5}}, true); err != nil || res.Status != DistributeCacheMissing {
		t.Fatalf("missing hash: %+v %v", res, err)
	}
	if n, _ := rdb.Exists(ctx, k.Template, k.Journal, k.Claims(5)).Result(); n != 0 {
		t.Fatalf("a refused call wrote %d keys", n)
	}
	p := activeTpl(10, 1)
	p.status = "ENDED"
	putTemplate(t, rdb, 72, p)
	res, err := Distribute(ctx, rdb, k, 0, time.Now(), []DistributeRow{{1, 5}, {2, 6}}, true) // ended: never short
	if err != nil || res.Status != DistributeDeducted || res.Outcomes[0].Code != DistributeEnded || res.Outcomes[1].Code != DistributeEnded {
		t.Fatalf("ended: %+v %v", res, err)
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 10 {
		t.Fatalf("stock %d, want 10", s)
	}
}

// A batch of users none of whom has a claim hash writes each accepted user's hash as a claim
// would (n 1, seq 1, expiring at the template's end), so the claim script counts them after; a
// batch with one user who has a hash, however far down, is counted row by row: that user at the
// limit is refused and keeps n, the others are accepted.
func TestDistributeNewUsersAndExistingOnes(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	const tid, task = 75, 9004
	p := activeTpl(3000, 1)
	putTemplate(t, rdb, tid, p)
	k := distKeys(tid, task)
	rows := []DistributeRow{{2, 40}, {3, 41}}
	if res, err := Distribute(ctx, rdb, k, 0, time.Now(), rows, false); err != nil || res.Status != DistributeDeducted ||
		res.Outcomes[0] != (DistributeOutcome{DistributeOK, 1, 0}) || res.Outcomes[1] != (DistributeOutcome{DistributeOK, 1, 0}) {
		t.Fatalf("new users: %+v %v", res, err)
	}
	wantExpiry := time.Unix((p.end.UnixMilli()+999)/1000, 0)
	for _, u := range []int64{40, 41} {
		if n, seq := hgetInt(t, rdb, k.Claims(u), "n"), hgetInt(t, rdb, k.Claims(u), "seq"); n != 1 || seq != 1 {
			t.Fatalf("user %d: n %d seq %d, want 1 1", u, n, seq)
		}
		if at, err := rdb.ExpireTime(ctx, k.Claims(u)).Result(); err != nil || !time.Unix(int64(at/time.Second), 0).Equal(wantExpiry) {
			t.Fatalf("user %d's hash expires at %v (%v), want the template's end %v", u, at, err, wantExpiry)
		}
	}
	for _, u := range []int64{40, 41} { // 41's hash is a COPY of 40's
		rid := "c-" + strconv.FormatInt(u, 10)
		if res := mustRedeem(t, rdb, redeemKeys(tid, u, "", rid), asyncArgs(u, rid)); res.Code != RedeemLimitReached {
			t.Fatalf("a claim of user %d, at the limit through distribution, was not refused LIMIT_REACHED: %+v", u, res)
		}
	}
	// 2,500 rows (more than one EXISTS chunk), user 4,200 holding its coupon through a claim.
	mustRedeem(t, rdb, redeemKeys(tid, 4200, "", "c-4200"), asyncArgs(4200, "c-4200"))
	rows = rows[:0]
	for i := range 2500 {
		rows = append(rows, DistributeRow{Row: 10 + i, UserID: int64(2000 + i)})
	}
	res, err := Distribute(ctx, rdb, k, 3, time.Now(), rows, false)
	if err != nil || res.Status != DistributeDeducted || len(res.Outcomes) != 2500 {
		t.Fatalf("mixed batch: %+v %v", res.Status, err)
	}
	for i, o := range res.Outcomes {
		want := DistributeOutcome{DistributeOK, 1, 0}
		if rows[i].UserID == 4200 {
			want = DistributeOutcome{DistributeLimitReached, 0, 0}
		}
		if o != want {
			t.Fatalf("user %d: %+v, want %+v", rows[i].UserID, o, want)
		}
	}
	if n, seq := hgetInt(t, rdb, k.Claims(4200), "n"), hgetInt(t, rdb, k.Claims(4200), "seq"); n != 1 || seq != 1 {
		t.Fatalf("user 4200 after its refused row: n %d seq %d, want 1 1", n, seq)
	}
	if at, _ := rdb.ExpireTime(ctx, k.Claims(2000)).Result(); !time.Unix(int64(at/time.Second), 0).Equal(wantExpiry) {
		t.Fatalf("user 2000's hash expires at %v, want %v", at, wantExpiry)
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 3000-1-2-2499 {
		t.Fatalf("stock %d, want %d", s, 3000-1-2-2499)
	}
}

// Under a limit of 2, a user holding one coupon between new users gets its second (the new
// users' hashes are copies of the first's, the held one is counted up, never overwritten).
func TestDistributeNewUsersAroundAHolder(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	const tid, task = 77, 9006
	p := activeTpl(100, 2)
	putTemplate(t, rdb, tid, p)
	k := distKeys(tid, task)
	mustRedeem(t, rdb, redeemKeys(tid, 60, "", "c-60"), asyncArgs(60, "c-60"))
	rows := []DistributeRow{{2, 59}, {3, 60}, {4, 61}}
	res, err := Distribute(ctx, rdb, k, 0, time.Now(), rows, false)
	if err != nil || res.Status != DistributeDeducted || len(res.Outcomes) != 3 {
		t.Fatalf("batch: %+v %v", res, err)
	}
	wantExpiry := time.Unix((p.end.UnixMilli()+999)/1000, 0)
	for i, want := range []struct {
		user       int64
		rc, n, seq int
	}{{59, 1, 1, 1}, {60, 2, 2, 2}, {61, 1, 1, 1}} {
		if res.Outcomes[i] != (DistributeOutcome{DistributeOK, want.rc, 0}) {
			t.Fatalf("user %d: %+v, want OK with receive_count %d", want.user, res.Outcomes[i], want.rc)
		}
		if n, seq := hgetInt(t, rdb, k.Claims(want.user), "n"), hgetInt(t, rdb, k.Claims(want.user), "seq"); n != want.n || seq != want.seq {
			t.Fatalf("user %d: n %d seq %d, want %d %d", want.user, n, seq, want.n, want.seq)
		}
		if at, err := rdb.ExpireTime(ctx, k.Claims(want.user)).Result(); err != nil || !time.Unix(int64(at/time.Second), 0).Equal(wantExpiry) {
			t.Fatalf("user %d's hash expires at %v (%v), want %v", want.user, at, err, wantExpiry)
		}
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 100-1-3 {
		t.Fatalf("stock %d, want %d", s, 100-1-3)
	}
}

// A journal an earlier version wrote as JSON is still replayed (its outcomes, nothing deducted)
// and read.
func TestDistributeReplaysAJSONJournal(t *testing.T) {
	ctx, rdb := context.Background(), testutil.Redis(t, "lua")
	const tid, task = 76, 9005
	putTemplate(t, rdb, tid, activeTpl(5, 1))
	k := distKeys(tid, task)
	rdb.HSet(ctx, k.Journal, "100", `{"rows":[[101,"50",0,1],[102,"51",2,0]],"start":100}`)
	res, err := Distribute(ctx, rdb, k, 100, time.Now(), []DistributeRow{{101, 50}, {102, 51}}, false)
	if err != nil || res.Status != DistributeReplayed || len(res.Outcomes) != 2 ||
		res.Outcomes[0] != (DistributeOutcome{DistributeOK, 1, 0}) || res.Outcomes[1] != (DistributeOutcome{DistributeLimitReached, 0, 0}) {
		t.Fatalf("replay of a JSON journal: %+v %v", res, err)
	}
	if s := hgetInt(t, rdb, k.Template, "stock"); s != 5 {
		t.Fatalf("a replay deducted: stock %d", s)
	}
	js, err := ReadJournals(ctx, rdb, k.Journal)
	if err != nil || len(js) != 1 || js[0].Start != 100 || len(js[0].Rows) != 2 || js[0].Rows[1] != (JournalRow{102, 51, DistributeLimitReached, 0}) {
		t.Fatalf("JSON journal read: %+v %v", js, err)
	}
}

// A journal that is not one distribute.lua writes is an error, never a batch of fewer rows.
func TestParseJournalRefusesMalformed(t *testing.T) {
	for _, raw := range []string{"", "5", "5|2:7", "5|2:7|0", "5|2:7,3:8|0,1", "5|2:7|0,1,0", "5|x:7|0,1", "5||"} {
		if j, err := ParseJournal("k", []byte(raw)); err == nil {
			t.Errorf("%q parsed as %+v", raw, j)
		}
	}
	j, err := ParseJournal("k", []byte("5|2:7,3:8|0,1,1,0"))
	if err != nil || j.Start != 5 || len(j.Rows) != 2 || j.Rows[0] != (JournalRow{2, 7, DistributeOK, 1}) || j.Rows[1] != (JournalRow{3, 8, DistributeOutOfStock, 0}) {
		t.Fatalf("%+v %v", j, err)
	}
}
