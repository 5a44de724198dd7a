package expiry

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/idgen"
	"coupond/testutil"

	"github.com/redis/go-redis/v9"
)

// expEnv is an Expirer over a fresh database and Redis, with a clock the test sets.
type expEnv struct {
	db  *ent.Client
	rdb redis.UniversalClient
	e   *Expirer
	seq atomic.Int64
}

func newExpEnv(t *testing.T, name string, now time.Time) *expEnv {
	t.Helper()
	db, _, _ := testutil.MySQL(t, "expiry_"+name)
	rdb := testutil.Redis(t, "expiry")
	e := NewExpirer(db, rdb)
	e.now = func() time.Time { return now }
	return &expEnv{db: db, rdb: rdb, e: e}
}

// coupon inserts a user_coupon row.
func (x *expEnv) coupon(t *testing.T, userID, templateID int64, end time.Time, st usercoupon.Status) *ent.UserCoupon {
	t.Helper()
	n := x.seq.Add(1)
	uc, err := x.db.UserCoupon.Create().SetID(idgen.Next()).SetUserID(userID).SetTemplateID(templateID).
		SetRedemptionID(fmt.Sprintf("rd-%d-%d", templateID, n)).
		SetReceiveCount(int(n)).SetSource(usercoupon.SourceCLAIM).
		SetValidStartTime(end.Add(-24 * time.Hour)).SetValidEndTime(end).SetStatus(st).
		Save(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return uc
}

// bucket puts coupons into their buckets the way the persister does.
func (x *expEnv) bucket(t *testing.T, cs ...*ent.UserCoupon) {
	t.Helper()
	ctx := context.Background()
	pipe := x.rdb.Pipeline()
	for _, c := range cs {
		AddToBuckets(ctx, pipe, c.TemplateID, []*ent.UserCoupon{c}, x.e.now())
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

func (x *expEnv) status(t *testing.T, c *ent.UserCoupon) usercoupon.Status {
	t.Helper()
	got, err := x.db.UserCoupon.Query().Where(usercoupon.UserID(c.UserID), usercoupon.ID(c.ID)).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got.Status
}

func (x *expEnv) expiredStat(t *testing.T, templateID int64, day time.Time) int {
	t.Helper()
	v, err := x.rdb.HGet(context.Background(), keys.DailyStats(templateID, keys.StatsDay(day)), "expired").Result()
	if err == redis.Nil {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(v)
	return n
}

func TestBucketMinuteAndAddToBuckets(t *testing.T) {
	ctx := context.Background()
	now := time.Now().UTC()
	x := newExpEnv(t, "add", now)
	end := time.Date(2031, 3, 4, 5, 6, 7, 890e6, time.FixedZone("UTC+8", 8*3600))
	minute := BucketMinute(end)
	if want := time.Date(2031, 3, 3, 21, 6, 0, 0, time.UTC); !minute.Equal(want) || minute.Location() != time.UTC {
		t.Fatalf("BucketMinute(%v) = %v, want %v in UTC", end, minute, want)
	}
	x.bucket(t, &ent.UserCoupon{ID: 77, UserID: 5, TemplateID: 9, ValidEndTime: end})
	key := keys.ExpiryBucket(9, minute.Unix())
	if key != keys.Namespace()+"{t9}:exp:"+strconv.FormatInt(minute.Unix(), 10) {
		t.Fatalf("bucket key %q", key)
	}
	if ok, err := x.rdb.SIsMember(ctx, key, "5:77").Result(); err != nil || !ok {
		t.Fatalf("member 5:77 in %s: %v %v", key, ok, err)
	}
	ttl := x.rdb.TTL(ctx, key).Val()
	if want := time.Until(minute.Add(7 * 24 * time.Hour)); ttl < want-time.Minute || ttl > want+time.Minute {
		t.Fatalf("bucket TTL %v, want about %v (its minute + 7 days)", ttl, want)
	}
	// A bucket already past lives 7 days from now, so a late addition is not dropped at once.
	past := now.Add(-30 * 24 * time.Hour)
	x.bucket(t, &ent.UserCoupon{ID: 78, UserID: 5, TemplateID: 9, ValidEndTime: past})
	ttl = x.rdb.TTL(ctx, keys.ExpiryBucket(9, BucketMinute(past).Unix())).Val()
	if ttl < 7*24*time.Hour-time.Minute {
		t.Fatalf("past bucket TTL %v, want about 7 days", ttl)
	}
	// Coupons sharing a minute go into its bucket with one SADD; each minute is returned once.
	pipe := x.rdb.Pipeline()
	later := end.Add(time.Hour)
	minutes := AddToBuckets(ctx, pipe, 9, []*ent.UserCoupon{
		{ID: 79, UserID: 6, ValidEndTime: end}, {ID: 80, UserID: 7, ValidEndTime: later}, {ID: 81, UserID: 8, ValidEndTime: end.Add(time.Second)},
	}, now)
	if n := len(pipe.Cmds()); n != 4 {
		t.Fatalf("%d commands queued for two buckets, want 4 (SADD and EXPIREAT each)", n)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if len(minutes) != 2 || !minutes[0].Equal(minute) || !minutes[1].Equal(BucketMinute(later)) {
		t.Fatalf("minutes = %v, want [%v %v]", minutes, minute, BucketMinute(later))
	}
	if got := x.rdb.SMembers(ctx, key).Val(); len(got) != 3 {
		t.Fatalf("bucket %s holds %v, want 5:77 6:79 8:81", key, got)
	}
}

func TestExpireBucketExpiresOnlyDueUnusedCoupons(t *testing.T) {
	ctx := context.Background()
	minute := time.Now().UTC().Truncate(time.Minute).Add(-5 * time.Minute)
	now := minute.Add(90 * time.Second) // the task runs a minute after its minute
	x := newExpEnv(t, "bucket", now)
	const tpl = 1001

	var due []*ent.UserCoupon
	for u := int64(1); u <= 5; u++ {
		due = append(due, x.coupon(t, u, tpl, minute.Add(time.Duration(u*10)*time.Second), usercoupon.StatusUNUSED))
	}
	used := x.coupon(t, 6, tpl, minute.Add(20*time.Second), usercoupon.StatusUSED)
	locked := x.coupon(t, 7, tpl, minute.Add(30*time.Second), usercoupon.StatusLOCKED)
	later := x.coupon(t, 8, tpl, minute.Add(5*time.Minute), usercoupon.StatusUNUSED) // its own, later bucket
	misplaced := x.coupon(t, 9, tpl, minute.Add(5*time.Minute), usercoupon.StatusUNUSED)
	wrongUser := x.coupon(t, 10, tpl, minute.Add(10*time.Second), usercoupon.StatusUNUSED)
	x.bucket(t, append([]*ent.UserCoupon{used, locked, later}, due...)...)

	key := keys.ExpiryBucket(tpl, minute.Unix())
	// Members that should not be there: a coupon not yet ended, a member naming the wrong user (the
	// UPDATE is keyed by (user_id, id), so it must not touch the coupon), and garbage.
	misplacedMember := keys.BucketMember(misplaced.UserID, misplaced.ID)
	if err := x.rdb.SAdd(ctx, key, misplacedMember, keys.BucketMember(999, wrongUser.ID), "garbage").Err(); err != nil {
		t.Fatal(err)
	}

	n, err := x.e.ExpireBucket(ctx, tpl, minute)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(due) {
		t.Fatalf("ExpireBucket expired %d, want %d", n, len(due))
	}
	for _, c := range due {
		if st := x.status(t, c); st != usercoupon.StatusEXPIRED {
			t.Errorf("due coupon %d: %s, want EXPIRED", c.ID, st)
		}
		got, _ := x.db.UserCoupon.Get(ctx, c.ID)
		if d := got.UpdatedAt.Sub(now); d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("updated_at %v, want %v", got.UpdatedAt, now)
		}
	}
	for c, want := range map[*ent.UserCoupon]usercoupon.Status{
		used: usercoupon.StatusUSED, locked: usercoupon.StatusLOCKED, later: usercoupon.StatusUNUSED,
		misplaced: usercoupon.StatusUNUSED, wrongUser: usercoupon.StatusUNUSED,
	} {
		if st := x.status(t, c); st != want {
			t.Errorf("coupon of user %d: %s, want %s", c.UserID, st, want)
		}
	}
	members, err := x.rdb.SMembers(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 1 || members[0] != misplacedMember {
		t.Fatalf("bucket left with %v, want only the not-yet-ended %s", members, misplacedMember)
	}
	laterKey := keys.ExpiryBucket(tpl, BucketMinute(later.ValidEndTime).Unix())
	if c := x.rdb.SCard(ctx, laterKey).Val(); c != 1 {
		t.Fatalf("later bucket has %d members, want 1", c)
	}
	if got := x.expiredStat(t, tpl, now); got != len(due) {
		t.Fatalf("stats expired = %d, want %d", got, len(due))
	}

	// Idempotent: a second run (asynq retries, a duplicate) expires and counts nothing.
	n, err = x.e.ExpireBucket(ctx, tpl, minute)
	if err != nil || n != 0 {
		t.Fatalf("second run: %d, %v; want 0, nil", n, err)
	}
	if got := x.expiredStat(t, tpl, now); got != len(due) {
		t.Fatalf("stats expired after second run = %d, want %d", got, len(due))
	}

	// Once the misplaced coupon's end has passed, its member goes and the empty bucket with it.
	x.e.now = func() time.Time { return minute.Add(6 * time.Minute) }
	if n, err = x.e.ExpireBucket(ctx, tpl, minute); err != nil || n != 1 {
		t.Fatalf("run after the misplaced coupon ended: %d, %v; want 1, nil", n, err)
	}
	if ex := x.rdb.Exists(ctx, key).Val(); ex != 0 {
		t.Fatal("empty bucket still exists")
	}
}

func TestExpireBucketRecoversAfterCrashBeforeCleanUp(t *testing.T) {
	ctx := context.Background()
	minute := time.Now().UTC().Truncate(time.Minute).Add(-5 * time.Minute)
	now := minute.Add(time.Minute)
	x := newExpEnv(t, "crash", now)
	const tpl = 1002
	c := x.coupon(t, 1, tpl, minute.Add(time.Second), usercoupon.StatusUNUSED)
	x.bucket(t, c)
	// A worker died after its UPDATE committed, before any Redis write: the DB says EXPIRED but the
	// member is still there.
	if err := x.db.UserCoupon.UpdateOneID(c.ID).SetStatus(usercoupon.StatusEXPIRED).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := x.e.ExpireBucket(ctx, tpl, minute)
	if err != nil || n != 0 {
		t.Fatalf("re-run: %d, %v; want 0 (already expired), nil", n, err)
	}
	if x.rdb.Exists(ctx, keys.ExpiryBucket(tpl, minute.Unix())).Val() != 0 {
		t.Fatal("re-run left the bucket")
	}
}

func TestExpireBucketConcurrentRunsExpireEachCouponOnce(t *testing.T) {
	ctx := context.Background()
	minute := time.Now().UTC().Truncate(time.Minute).Add(-3 * time.Minute)
	now := minute.Add(time.Minute)
	x := newExpEnv(t, "concurrent", now)
	x.e.UserShards = 4                       // the runs' transactions split by user shard (the other tests: one shard)
	const tpl, users, perUser = 1003, 300, 4 // 1200 coupons: several SSCAN pages and UPDATE chunks

	var all []*ent.UserCoupon
	builders := make([]*ent.UserCouponCreate, 0, users*perUser)
	for u := int64(1); u <= users; u++ {
		for k := 1; k <= perUser; k++ {
			end := minute.Add(time.Duration(u%60) * time.Second)
			builders = append(builders, x.db.UserCoupon.Create().SetID(idgen.Next()).SetUserID(u).SetTemplateID(tpl).
				SetRedemptionID(fmt.Sprintf("c-%d-%d", u, k)).
				SetReceiveCount(k).SetSource(usercoupon.SourceCLAIM).
				SetValidStartTime(end.Add(-time.Hour)).SetValidEndTime(end))
		}
	}
	for i := 0; i < len(builders); i += 400 {
		cs, err := x.db.UserCoupon.CreateBulk(builders[i:min(i+400, len(builders))]...).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, cs...)
	}
	x.bucket(t, all...)

	const workers = 4
	var wg sync.WaitGroup
	var total atomic.Int64
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			n, err := x.e.ExpireBucket(ctx, tpl, minute)
			total.Add(int64(n))
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if total.Load() != int64(len(all)) {
		t.Fatalf("workers expired %d in total, want %d", total.Load(), len(all))
	}
	expired, err := x.db.UserCoupon.Query().Where(usercoupon.TemplateID(tpl), usercoupon.StatusEQ(usercoupon.StatusEXPIRED)).Count(ctx)
	if err != nil || expired != len(all) {
		t.Fatalf("%d EXPIRED rows (%v), want %d", expired, err, len(all))
	}
	if got := x.expiredStat(t, tpl, now); got != len(all) {
		t.Fatalf("stats expired = %d, want %d (each coupon counted once)", got, len(all))
	}
	if x.rdb.Exists(ctx, keys.ExpiryBucket(tpl, minute.Unix())).Val() != 0 {
		t.Fatal("bucket still exists")
	}
}
