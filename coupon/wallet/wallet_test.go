package wallet

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/archive"
	"coupond/coupon/archivedue"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/idgen"
	"coupond/testutil"
)

const user = 42

// seed inserts n coupons of the user, oldest first (ascending ids); every third one USED and every
// third + 1 EXPIRED, all changed long ago, the rest UNUSED and valid. It returns them newest first.
func seed(t *testing.T, db *ent.Client, n int, changed time.Time) []*ent.UserCoupon {
	t.Helper()
	b := make([]*ent.UserCouponCreate, n)
	for i := range b {
		st := usercoupon.StatusUNUSED
		end := time.Now().Add(24 * time.Hour)
		switch i % 3 {
		case 0:
			st = usercoupon.StatusUSED
		case 1:
			st, end = usercoupon.StatusEXPIRED, changed
		}
		b[i] = db.UserCoupon.Create().SetID(idgen.Next()).SetUserID(user).SetTemplateID(9).
			SetRedemptionID(fmt.Sprintf("rd-%d", i)).SetReceiveCount(i + 1).
			SetSource(usercoupon.SourceCLAIM).SetStatus(st).SetValidStartTime(changed.Add(-time.Hour)).
			SetValidEndTime(end).SetUpdatedAt(changed)
	}
	rows, err := db.UserCoupon.CreateBulk(b...).Save(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var due []archivedue.Coupon // queued for the archive, as their transitions do
	for _, r := range rows {
		if r.Status == usercoupon.StatusUSED || r.Status == usercoupon.StatusEXPIRED {
			due = append(due, archivedue.Coupon{UserID: r.UserID, ID: r.ID})
		}
	}
	if err := archivedue.Add(context.Background(), db.ArchiveDue, changed, due...); err != nil {
		t.Fatal(err)
	}
	slices.Reverse(rows)
	return rows
}

// walk pages through the user's coupons with pages of size, forward or backward, and returns the
// ids in listing order (newest first) and the totals each page reported.
func walk(t *testing.T, w *Wallet, size int, backward, archived bool, status *usercoupon.Status) (ids []int64, totals []int, archivedSeen int) {
	t.Helper()
	k := coupon.Keyset{Size: size, Backward: backward}
	var pages [][]int64
	for range 100 {
		p, err := w.MyCoupons(context.Background(), user, status, k, archived)
		if err != nil {
			t.Fatal(err)
		}
		var page []int64
		for _, c := range p.Items {
			page = append(page, c.ID)
			if c.ArchivedAt != nil {
				archivedSeen++
			}
		}
		pages = append(pages, page)
		totals = append(totals, p.Total)
		if !p.HasMore || len(page) == 0 {
			break
		}
		if backward {
			k.Before = page[0]
		} else {
			k.After = page[len(page)-1]
		}
	}
	if backward {
		slices.Reverse(pages)
	}
	for _, p := range pages {
		ids = append(ids, p...)
	}
	return ids, totals, archivedSeen
}

func TestMyCouponsWithArchivedPagesAcrossBothTables(t *testing.T) {
	db, _, _ := testutil.MySQL(t, "wallet_archived")
	rdb := testutil.Redis(t, "wallet")
	ctx := context.Background()
	old := time.Now().Add(-100 * 24 * time.Hour)
	all := seed(t, db, 20, old) // 7 USED + 7 EXPIRED go to the archive, 6 UNUSED stay
	if res, err := archive.New(db, rdb, archive.Config{After: 90 * 24 * time.Hour, BatchSize: 4}).Run(ctx); err != nil || res.Moved != 14 {
		t.Fatalf("archive: %+v, %v", res, err)
	}
	w := New(db)
	var allIDs, hotIDs []int64
	for _, c := range all {
		allIDs = append(allIDs, c.ID)
		if c.Status == usercoupon.StatusUNUSED {
			hotIDs = append(hotIDs, c.ID)
		}
	}
	for _, backward := range []bool{false, true} {
		ids, totals, seen := walk(t, w, 3, backward, true, nil)
		if !slices.Equal(ids, allIDs) || seen != 14 {
			t.Fatalf("backward=%v with archived: %v (%d archived), want %v", backward, ids, seen, allIDs)
		}
		for _, n := range totals {
			if n != 20 {
				t.Fatalf("backward=%v: total %d, want 20", backward, n)
			}
		}
		ids, totals, seen = walk(t, w, 3, backward, false, nil)
		if !slices.Equal(ids, hotIDs) || seen != 0 || totals[0] != 6 {
			t.Fatalf("backward=%v without archived: %v, total %v, want %v", backward, ids, totals, hotIDs)
		}
	}
	used := usercoupon.StatusUSED
	ids, totals, _ := walk(t, w, 2, false, true, &used)
	if len(ids) != 7 || totals[0] != 7 {
		t.Fatalf("USED with archived: %d coupons, total %d, want 7", len(ids), totals[0])
	}
	if ids, _, _ := walk(t, w, 2, false, false, &used); len(ids) != 0 {
		t.Fatalf("USED without archived: %v, want none (all archived)", ids)
	}
	p, err := w.MyCoupons(ctx, user, nil, coupon.Keyset{Size: 20}, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range p.Items {
		if c.ID != all[i].ID || c.RedemptionID != all[i].RedemptionID || c.Status() != all[i].Status || c.UserID != user {
			t.Fatalf("item %d: %+v, want %+v", i, c.UserCoupon, all[i])
		}
	}
}

func TestMyCouponsWithArchivedWhileTheArchiveRuns(t *testing.T) {
	db, _, _ := testutil.MySQL(t, "wallet_concurrent")
	rdb := testutil.Redis(t, "wallet")
	all := seed(t, db, 600, time.Now().Add(-100*24*time.Hour))
	w := New(db)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := archive.New(db, rdb, archive.Config{After: 90 * 24 * time.Hour, BatchSize: 10}).Run(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	// Every listing taken meanwhile sees each coupon exactly once, in one table or the other.
	for range 30 {
		p, err := w.MyCoupons(context.Background(), user, nil, coupon.Keyset{Size: 100}, true)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != len(all) {
			t.Fatalf("total %d while archiving, want %d", p.Total, len(all))
		}
		for i, c := range p.Items {
			if c.ID != all[i].ID {
				t.Fatalf("item %d is %d, want %d", i, c.ID, all[i].ID)
			}
		}
	}
	wg.Wait()
}
