package archive

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon/archivedue"
	"coupond/coupon/expiry"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/couponsettlement"
	"coupond/ent/usercoupon"
	"coupond/ent/usercouponarchive"
	"coupond/idgen"
	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

const age = 90 * 24 * time.Hour

// env is an archiver over a fresh database and Redis namespace, with the clock at now.
type env struct {
	db  *ent.Client
	rdb redis.UniversalClient
	seq atomic.Int64
}

func newEnv(t *testing.T, name string) *env {
	t.Helper()
	db, _, _ := testutil.MySQL(t, "archive_"+name)
	return &env{db: db, rdb: testutil.Redis(t, "archive")}
}

func (x *env) archiver(batch int) *Archiver {
	a := New(x.db, x.rdb, Config{After: age, BatchSize: batch})
	a.now = func() time.Time { return now }
	return a
}

// coupons inserts n coupons of one status last changed at changed (one user per 3 coupons), each
// with an expiry-bucket member and, when EXPIRED or USED, its archive queue entry, and returns them.
func (x *env) coupons(t *testing.T, n int, st usercoupon.Status, changed time.Time) []*ent.UserCoupon {
	t.Helper()
	ctx := context.Background()
	var out []*ent.UserCoupon
	for chunk := range slices.Chunk(make([]struct{}, n), 500) {
		b := make([]*ent.UserCouponCreate, len(chunk))
		for i := range chunk {
			k := x.seq.Add(1)
			end := changed.Add(-time.Hour)
			c := x.db.UserCoupon.Create().SetID(idgen.Next()).SetUserID(1000 + k/3).SetTemplateID(77).
				SetRedemptionID(fmt.Sprintf("rd-%d", k)).SetReceiveCount(int(k)).
				SetSource(usercoupon.SourceCLAIM).SetStatus(st).SetValidStartTime(end.Add(-24 * time.Hour)).
				SetValidEndTime(end).SetCreatedAt(end.Add(-24 * time.Hour)).SetUpdatedAt(changed)
			if st == usercoupon.StatusUSED {
				c.SetUsedAt(changed).SetOrderID(k)
			}
			b[i] = c
		}
		rows, err := x.db.UserCoupon.CreateBulk(b...).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st == usercoupon.StatusEXPIRED || st == usercoupon.StatusUSED { // as their transitions do
			due := make([]archivedue.Coupon, len(rows))
			for i, c := range rows {
				due[i] = archivedue.Coupon{UserID: c.UserID, ID: c.ID}
			}
			if err := archivedue.Add(ctx, x.db.ArchiveDue, changed, due...); err != nil {
				t.Fatal(err)
			}
		}
		pipe := x.rdb.Pipeline()
		for _, c := range rows {
			pipe.SAdd(ctx, keys.ExpiryBucket(c.TemplateID, expiry.BucketMinute(c.ValidEndTime).Unix()), keys.BucketMember(c.UserID, c.ID))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
	}
	return out
}

// settle gives the coupon a settlement of status st (live_coupon_id set while LOCKED or PAID).
func (x *env) settle(t *testing.T, c *ent.UserCoupon, st couponsettlement.Status) {
	t.Helper()
	s := x.db.CouponSettlement.Create().SetID(idgen.Next()).SetUserID(c.UserID).SetOrderID(x.seq.Add(1)).
		SetCouponID(c.ID).SetTemplateID(c.TemplateID).SetStatus(st)
	if st == couponsettlement.StatusLOCKED || st == couponsettlement.StatusPAID {
		s.SetLiveCouponID(c.ID)
	}
	if err := s.Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// books checks that user_coupon and the archive together hold exactly the ids of all, each once,
// and returns the archived ids.
func (x *env) books(t *testing.T, all []*ent.UserCoupon) map[int64]bool {
	t.Helper()
	ctx := context.Background()
	hot, err := x.db.UserCoupon.Query().IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cold, err := x.db.UserCouponArchive.Query().IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(hot)+len(cold) != len(all) {
		t.Fatalf("books: %d hot + %d archived, want %d", len(hot), len(cold), len(all))
	}
	seen := map[int64]bool{}
	for _, id := range hot {
		seen[id] = true
	}
	archived := map[int64]bool{}
	for _, id := range cold {
		if seen[id] {
			t.Fatalf("books: coupon %d is in both tables", id)
		}
		seen[id] = true
		archived[id] = true
	}
	for _, c := range all {
		if !seen[c.ID] {
			t.Fatalf("books: coupon %d is in neither table", c.ID)
		}
	}
	return archived
}

func TestArchiveMovesExactlyTheDueRowsInBatchesAndTwiceRunSafe(t *testing.T) {
	x := newEnv(t, "due")
	ctx := context.Background()
	old, young := now.Add(-age-time.Hour), now.Add(-age+time.Hour)
	var all, want []*ent.UserCoupon
	add := func(cs []*ent.UserCoupon, moves bool) []*ent.UserCoupon {
		all = append(all, cs...)
		if moves {
			want = append(want, cs...)
		}
		return cs
	}
	add(x.coupons(t, 23, usercoupon.StatusEXPIRED, old), true)
	add(x.coupons(t, 5, usercoupon.StatusEXPIRED, young), false)
	add(x.coupons(t, 9, usercoupon.StatusUSED, old), true)
	add(x.coupons(t, 4, usercoupon.StatusUSED, young), false)
	add(x.coupons(t, 4, usercoupon.StatusUNUSED, old), false) // ended long ago, the sweep's: not ours
	add(x.coupons(t, 3, usercoupon.StatusLOCKED, old), false)
	add(x.coupons(t, 3, usercoupon.StatusREVOKED, old), false)
	paid := add(x.coupons(t, 3, usercoupon.StatusUSED, old), false) // refundable: kept
	for _, c := range paid {
		x.settle(t, c, couponsettlement.StatusPAID)
	}
	refunded := add(x.coupons(t, 2, usercoupon.StatusUSED, old), true) // FORFEIT refund: nothing acts on it
	for _, c := range refunded {
		x.settle(t, c, couponsettlement.StatusREFUNDED)
	}
	// exactly at the age: not yet (strictly older than After)
	add(x.coupons(t, 1, usercoupon.StatusEXPIRED, now.Add(-age)), false)

	a := x.archiver(7)
	res, err := a.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 23 EXPIRED + 9+3+2 USED = 37 due entries in batches of 7 → 5 full batches and one of 2.
	if res.Moved != len(want) || res.Kept != len(paid) || res.Batches != 4+2 || res.Busy {
		t.Fatalf("run: %+v, want %d moved, %d kept, 6 batches", res, len(want), len(paid))
	}
	archived := x.books(t, all)
	if len(archived) != len(want) {
		t.Fatalf("%d archived, want %d", len(archived), len(want))
	}
	for _, c := range want {
		if !archived[c.ID] {
			t.Fatalf("coupon %d (%s, changed %s) not archived", c.ID, c.Status, c.UpdatedAt)
		}
		got, err := x.db.UserCouponArchive.Get(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.UserID != c.UserID || got.RedemptionID != c.RedemptionID || got.Status.String() != c.Status.String() ||
			!got.UpdatedAt.Equal(c.UpdatedAt) || !got.CreatedAt.Equal(c.CreatedAt) || !got.ValidEndTime.Equal(c.ValidEndTime) ||
			(c.UsedAt != nil) != (got.UsedAt != nil) || !got.ArchivedAt.Equal(now) {
			t.Fatalf("archived row %+v differs from %+v", got, c)
		}
		if x.rdb.SIsMember(ctx, keys.ExpiryBucket(c.TemplateID, expiry.BucketMinute(c.ValidEndTime).Unix()), keys.BucketMember(c.UserID, c.ID)).Val() {
			t.Fatalf("coupon %d still in its expiry bucket", c.ID)
		}
	}
	for _, c := range paid {
		if archived[c.ID] {
			t.Fatalf("coupon %d with a PAID settlement was archived", c.ID)
		}
	}

	// Twice-run safe: nothing more, and the kept rows left the queue: nothing looks at them again.
	res, err = a.Run(ctx)
	if err != nil || res.Moved != 0 || res.Kept != 0 || res.Batches != 0 {
		t.Fatalf("second run: %+v, %v; want nothing", res, err)
	}
	x.books(t, all)

	// Time passes: the young ones come due, and only they are looked at.
	later := x.archiver(7)
	later.now = func() time.Time { return now.Add(2 * time.Hour) }
	res, err = later.Run(ctx)
	if err != nil || res.Moved != 5+4+1 || res.Kept != 0 {
		t.Fatalf("later run: %+v, %v; want the 10 young coupons", res, err)
	}
	x.books(t, all)
}

func TestArchiveConcurrentRunsMoveEachRowOnce(t *testing.T) {
	x := newEnv(t, "concurrent")
	old := now.Add(-age - time.Hour)
	all := append(x.coupons(t, 1500, usercoupon.StatusEXPIRED, old), x.coupons(t, 500, usercoupon.StatusUSED, old)...)
	for _, c := range all[1490:1510] { // some kept, on both walks
		x.settle(t, c, couponsettlement.StatusPAID)
	}
	// Four archivers at once, without the lease: only the row locks and the transaction keep them apart.
	var moved, kept atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := x.archiver(50)
			a.cfg.UserShards = 4 // each batch in transactions of one user shard
			res, err := a.run(context.Background())
			moved.Add(int64(res.Moved))
			kept.Add(int64(res.Kept))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	archived := x.books(t, all)
	if moved.Load() != 1980 || len(archived) != 1980 {
		t.Fatalf("moved %d (reported) / %d (archive), want 1980", moved.Load(), len(archived))
	}
	if kept.Load() < 20 {
		t.Fatalf("kept %d, want at least the 20 with a PAID settlement", kept.Load())
	}

	// With the lease: two runs at once, one does the work, the other is busy or finds nothing.
	more := x.coupons(t, 300, usercoupon.StatusEXPIRED, old.Add(time.Minute))
	all = append(all, more...)
	var total atomic.Int64
	var busy atomic.Int64
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := x.archiver(50).Run(context.Background())
			if err != nil {
				t.Error(err)
			}
			total.Add(int64(res.Moved))
			if res.Busy {
				busy.Add(1)
			}
		}()
	}
	wg.Wait()
	if total.Load() != 300 {
		t.Fatalf("leased runs moved %d, want 300 (busy: %d)", total.Load(), busy.Load())
	}
	x.books(t, all)
}

func TestArchiveResumesFromTheQueueAfterAStop(t *testing.T) {
	x := newEnv(t, "resume")
	old := now.Add(-age - time.Hour)
	var all []*ent.UserCoupon
	// The first 40 entries of the queue hold 10 kept ones: a rescan from the start would look at them again.
	first := x.coupons(t, 40, usercoupon.StatusEXPIRED, old.Add(-time.Hour))
	for _, c := range first[:10] {
		x.settle(t, c, couponsettlement.StatusLOCKED)
	}
	all = append(all, first...)
	all = append(all, x.coupons(t, 260, usercoupon.StatusEXPIRED, old)...)

	ctx, cancel := context.WithCancel(context.Background())
	a := x.archiver(40)
	batches := 0
	a.afterBatch = func() {
		if batches++; batches == 3 {
			cancel() // stopped between two batches, like a kill -9 there
		}
	}
	res, err := a.Run(ctx)
	if !errors.Is(err, context.Canceled) || res.Batches != 3 || res.Moved != 110 || res.Kept != 10 {
		t.Fatalf("stopped run: %+v, %v; want 3 batches, 110 moved, 10 kept, canceled", res, err)
	}
	x.books(t, all)
	if n := x.db.ArchiveDue.Query().CountX(context.Background()); n != 180 {
		t.Fatalf("%d queue entries after the stop, want the 180 not looked at", n)
	}

	// A new process (new Archiver) goes on from the queue: never looks at the kept rows again.
	res, err = x.archiver(40).Run(context.Background())
	if err != nil || res.Moved != 180 || res.Kept != 0 || res.Batches != 5 {
		t.Fatalf("resumed run: %+v, %v; want 180 moved in 5 batches, none kept", res, err)
	}
	if archived := x.books(t, all); len(archived) != 290 {
		t.Fatalf("%d archived, want 290", len(archived))
	}
}

func TestArchiveBatchCostIsBounded(t *testing.T) {
	db, sqlDB, _ := testutil.MySQL(t, "archive_explain")
	sqlDB.SetMaxOpenConns(1) // one session: its handler counters are the batch's
	x := &env{db: db, rdb: testutil.Redis(t, "archive")}
	ctx := context.Background()
	old := now.Add(-age - time.Hour)
	x.coupons(t, 3000, usercoupon.StatusEXPIRED, old)
	x.coupons(t, 2000, usercoupon.StatusUSED, old.Add(time.Minute))
	x.coupons(t, 1000, usercoupon.StatusUNUSED, now)
	for _, q := range []string{"ANALYZE TABLE user_coupon", "ANALYZE TABLE archive_due"} {
		if _, err := x.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := x.db.QueryContext(ctx, "EXPLAIN SELECT id, user_id FROM archive_due WHERE ended_at < ? ORDER BY ended_at, id LIMIT 100", now.Add(-age))
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rs.Columns()
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		plan := map[string]string{}
		for i, c := range cols {
			if b, ok := vals[i].([]byte); ok {
				plan[c] = string(b)
			}
		}
		t.Logf("EXPLAIN: %v", plan)
		if plan["key"] != "archivedue_ended_at" || strings.Contains(plan["Extra"], "filesort") {
			t.Fatalf("the queue read is not a range on archivedue_ended_at without a sort: %v", plan)
		}
	}
	rs.Close()

	// Rows the engine reads for one whole batch of 100 (queue, coupons, settlements, the move, the
	// dequeue) with 5,000 entries and 6,000 coupons: a few per entry, not the tables.
	a := x.archiver(100)
	before := handlerReads(t, x.db)
	b, err := a.batch(ctx, now.Add(-age))
	if err != nil || b.looked != 100 || len(b.moved) != 100 {
		t.Fatalf("batch: %+v, %v", b, err)
	}
	read := handlerReads(t, x.db) - before
	t.Logf("one batch of 100 of 5000 queued read %d index entries", read)
	if read > 1000 {
		t.Fatalf("one batch of 100 read %d index entries: its cost grows with the tables", read)
	}
}

// handlerReads is the session's Handler_read_key + Handler_read_next so far (db has one connection).
func handlerReads(t *testing.T, db *ent.Client) int64 {
	t.Helper()
	rs, err := db.QueryContext(context.Background(), "SHOW SESSION STATUS WHERE Variable_name IN ('Handler_read_key', 'Handler_read_next')")
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var sum int64
	for rs.Next() {
		var name string
		var v int64
		if err := rs.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		sum += v
	}
	return sum
}

func TestArchiveColumnsMatch(t *testing.T) {
	want := append(slices.Clone(usercoupon.Columns), usercouponarchive.FieldArchivedAt)
	if !slices.Equal(usercouponarchive.Columns, want) {
		t.Fatalf("user_coupon_archive columns %v, want user_coupon's + archived_at %v", usercouponarchive.Columns, want)
	}
}

// TestArchiveQueueFollowsTheCoupons: an entry whose coupon came back (UNUSED again: a RETURN
// refund) or is gone only leaves the queue; one whose coupon changed after the entry is due from
// that change; an entry a transition wrote again since the batch's first read is left for later.
func TestArchiveQueueFollowsTheCoupons(t *testing.T) {
	x := newEnv(t, "follows")
	ctx := context.Background()
	old := now.Add(-age - time.Hour)
	all := x.coupons(t, 10, usercoupon.StatusUSED, old)
	back, changed, gone := all[0], all[1], all[2]
	if err := x.db.UserCoupon.UpdateOne(back).SetStatus(usercoupon.StatusUNUSED).ClearUsedAt().ClearOrderID().Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := x.db.UserCoupon.UpdateOne(changed).SetUpdatedAt(now.Add(-time.Hour)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := x.db.UserCoupon.DeleteOne(gone).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	all = all[3:]
	res, err := x.archiver(4).Run(ctx)
	if err != nil || res.Moved != 7 || res.Kept != 0 || res.Batches != 3 {
		t.Fatalf("run: %+v, %v; want the 7 due moved in 3 batches", res, err)
	}
	if archived := x.books(t, append(all, back, changed)); len(archived) != 7 || archived[back.ID] || archived[changed.ID] {
		t.Fatalf("archived %v", archived)
	}
	left, err := x.db.ArchiveDue.Query().All(ctx)
	if err != nil || len(left) != 1 || left[0].ID != changed.ID || !left[0].EndedAt.Equal(now.Add(-time.Hour)) {
		t.Fatalf("queue after the run: %v, %v; want only the changed coupon, due from its change", left, err)
	}
	later := x.archiver(4)
	later.now = func() time.Time { return now.Add(age) }
	if res, err := later.Run(ctx); err != nil || res.Moved != 1 {
		t.Fatalf("later run: %+v, %v; want the changed coupon moved", res, err)
	}
	if n := x.db.ArchiveDue.Query().CountX(ctx); n != 0 {
		t.Fatalf("%d entries left", n)
	}
}

// TestArchiveKilledBatchLosesNothing: the batch's connection is killed after its move and
// dequeue, before its commit (a crash there): nothing moved, no entry lost; the next run moves
// every row once.
func TestArchiveKilledBatchLosesNothing(t *testing.T) {
	x := newEnv(t, "killed")
	ctx := context.Background()
	old := now.Add(-age - time.Hour)
	all := append(x.coupons(t, 30, usercoupon.StatusEXPIRED, old), x.coupons(t, 20, usercoupon.StatusUSED, old)...)
	a := x.archiver(20)
	kills := 0
	a.beforeCommit = func(tx *ent.Tx) error {
		if kills++; kills > 2 {
			return nil
		}
		var id int64
		rs, err := tx.QueryContext(ctx, "SELECT CONNECTION_ID()")
		if err != nil {
			return err
		}
		for rs.Next() {
			if err := rs.Scan(&id); err != nil {
				return err
			}
		}
		rs.Close()
		_, err = x.db.ExecContext(ctx, fmt.Sprintf("KILL %d", id))
		return err
	}
	if res, err := a.Run(ctx); err == nil || res.Moved != 0 {
		t.Fatalf("run killed in its first batch: %+v, %v; want an error and nothing moved", res, err)
	}
	x.books(t, all)
	if n := x.db.UserCouponArchive.Query().CountX(ctx); n != 0 {
		t.Fatalf("%d rows archived by a killed batch", n)
	}
	if n := x.db.ArchiveDue.Query().CountX(ctx); n != 50 {
		t.Fatalf("%d queue entries after the kill, want all 50", n)
	}
	// A second kill, this time in the middle of the run (after a committed batch).
	kills = 2                           // the run's first batch commits,
	a.afterBatch = func() { kills = 1 } // the next one's commit is killed
	_, _ = a.Run(ctx)
	a.beforeCommit, a.afterBatch = nil, nil
	res, err := a.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	archived := x.books(t, all)
	if len(archived) != 50 || x.db.ArchiveDue.Query().CountX(ctx) != 0 {
		t.Fatalf("after the kills: %d archived (last run %+v), want 50 and an empty queue", len(archived), res)
	}
}

func TestArchiveTimeoutInsideABatchRollsItBack(t *testing.T) {
	x := newEnv(t, "timeout")
	ctx := context.Background()
	old := now.Add(-age - time.Hour)
	all := x.coupons(t, 50, usercoupon.StatusEXPIRED, old)
	// Another transaction holds the 10th coupon's row: the first batch waits inside its transaction.
	blocker, err := x.db.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blocker.UserCoupon.Update().Where(usercoupon.UserID(all[9].UserID), usercoupon.ID(all[9].ID)).
		SetUpdatedAt(old).Save(ctx); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	res, err := x.archiver(20).Run(short)
	if err == nil || res.Moved != 0 || res.Batches != 0 {
		t.Fatalf("run stuck behind a lock: %+v, %v; want an error and nothing moved", res, err)
	}
	x.books(t, all)
	if n := x.db.UserCouponArchive.Query().CountX(ctx); n != 0 {
		t.Fatalf("%d rows archived by a batch that timed out, want 0", n)
	}
	if err := blocker.Commit(); err != nil {
		t.Fatal(err)
	}
	res, err = x.archiver(20).Run(ctx)
	if err != nil || res.Moved != 50 {
		t.Fatalf("run after the lock went: %+v, %v", res, err)
	}
	x.books(t, all)
}
