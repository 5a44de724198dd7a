package expiry

import (
	"context"
	"fmt"
	"testing"
	"time"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/usercoupon"
)

func TestSweepExpiresCouponsNoBucketExpired(t *testing.T) {
	ctx := context.Background()
	now := time.Now().UTC()
	x := newExpEnv(t, "sweep", now)
	x.e.sweepPage = 3 // several pages over the primary key
	const tplA, tplB = 2001, 2002

	var stragglers []*ent.UserCoupon
	for u := int64(1); u <= 10; u++ {
		tpl := int64(tplA)
		if u%3 == 0 {
			tpl = tplB
		}
		stragglers = append(stragglers, x.coupon(t, u, tpl, now.Add(-10*time.Minute), usercoupon.StatusUNUSED))
	}
	bucketed := stragglers[0] // its bucket task was lost: the sweep also removes it from the bucket
	x.bucket(t, bucketed)
	inGrace := x.coupon(t, 20, tplA, now.Add(-30*time.Second), usercoupon.StatusUNUSED)
	future := x.coupon(t, 21, tplA, now.Add(time.Hour), usercoupon.StatusUNUSED)
	used := x.coupon(t, 22, tplA, now.Add(-time.Hour), usercoupon.StatusUSED)
	done := x.coupon(t, 23, tplB, now.Add(-time.Hour), usercoupon.StatusEXPIRED)

	n, err := x.e.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(stragglers) {
		t.Fatalf("Sweep expired %d, want %d", n, len(stragglers))
	}
	wantA, wantB := 0, 0
	for _, c := range stragglers {
		if st := x.status(t, c); st != usercoupon.StatusEXPIRED {
			t.Errorf("straggler %d: %s, want EXPIRED", c.ID, st)
		}
		if c.TemplateID == tplA {
			wantA++
		} else {
			wantB++
		}
	}
	for c, want := range map[*ent.UserCoupon]usercoupon.Status{
		inGrace: usercoupon.StatusUNUSED, future: usercoupon.StatusUNUSED, used: usercoupon.StatusUSED, done: usercoupon.StatusEXPIRED,
	} {
		if st := x.status(t, c); st != want {
			t.Errorf("coupon of user %d: %s, want %s", c.UserID, st, want)
		}
	}
	if x.rdb.Exists(ctx, keys.ExpiryBucket(tplA, BucketMinute(bucketed.ValidEndTime).Unix())).Val() != 0 {
		t.Error("the swept coupon's bucket still names it")
	}
	if a, b := x.expiredStat(t, tplA, now), x.expiredStat(t, tplB, now); a != wantA || b != wantB {
		t.Fatalf("stats expired = %d, %d; want %d, %d", a, b, wantA, wantB)
	}
	if n, err := x.e.Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("second sweep: %d, %v; want 0, nil", n, err)
	}
	if a := x.expiredStat(t, tplA, now); a != wantA {
		t.Fatalf("stats after second sweep = %d, want %d", a, wantA)
	}
	// A bucket task running after the sweep finds nothing left to do.
	if n, err := x.e.ExpireBucket(ctx, tplA, BucketMinute(bucketed.ValidEndTime)); err != nil || n != 0 {
		t.Fatalf("bucket after sweep: %d, %v; want 0, nil", n, err)
	}
}

func TestSweepIsBoundedPerRun(t *testing.T) {
	ctx := context.Background()
	now := time.Now().UTC()
	x := newExpEnv(t, "sweep_limit", now)
	x.e.sweepPage = 3
	x.e.SweepLimit = 4
	for u := int64(1); u <= 10; u++ {
		x.coupon(t, u, 3001, now.Add(-time.Hour), usercoupon.StatusUNUSED)
	}
	var got []int
	for range 4 {
		n, err := x.e.Sweep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	if fmt.Sprint(got) != "[4 4 2 0]" {
		t.Fatalf("runs expired %v, want [4 4 2 0]", got)
	}
}
