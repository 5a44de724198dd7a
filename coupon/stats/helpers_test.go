package stats_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/archive"
	"coupond/coupon/checkout"
	"coupond/coupon/distribution"
	"coupond/coupon/keys"
	"coupond/coupon/stats"
	"coupond/ent/coupontask"
	"coupond/ent/usercoupon"
	"coupond/testutil/stack"

	"github.com/shopspring/decimal"
)

// truth is what SQL counts directly from user_coupon (∪ archive) and coupon_settlement, per UTC
// day (the tests' stats zone), independently of the stats package.
type truth struct {
	days   map[string]stats.Counts
	locked int
}

func sqlTruth(t *testing.T, db *sql.DB, templateID int64) truth {
	t.Helper()
	tr := truth{days: map[string]stats.Counts{}}
	q := func(query string, scan func(day string, n int, cents int64, extra string)) {
		rows, err := db.Query(query, templateID, templateID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var day, extra string
			var n int
			var cents decimal.Decimal
			if err := rows.Scan(&day, &n, &cents, &extra); err != nil {
				t.Fatal(err)
			}
			scan(day, n, cents.Shift(2).IntPart(), extra)
		}
	}
	upd := func(day string, f func(*stats.Counts)) { c := tr.days[day]; f(&c); tr.days[day] = c }
	q(`SELECT CAST(DATE(created_at) AS CHAR), COUNT(*), 0, source FROM (SELECT created_at, source FROM user_coupon WHERE template_id = ?
	   UNION ALL SELECT created_at, source FROM user_coupon_archive WHERE template_id = ?) u GROUP BY 1, 4`,
		func(day string, n int, _ int64, source string) {
			upd(day, func(c *stats.Counts) {
				if source == "DISTRIBUTION" {
					c.IssuedDistribution = n
				} else {
					c.IssuedClaim = n
				}
			})
		})
	q(`SELECT CAST(DATE(updated_at) AS CHAR), COUNT(*), 0, '' FROM (SELECT updated_at FROM user_coupon WHERE template_id = ? AND status = 'EXPIRED'
	   UNION ALL SELECT updated_at FROM user_coupon_archive WHERE template_id = ? AND status = 'EXPIRED') u GROUP BY 1`,
		func(day string, n int, _ int64, _ string) { upd(day, func(c *stats.Counts) { c.Expired = n }) })
	// Net: a payment counts on its day, as used while it stands, as refunded once refunded.
	q(`SELECT CAST(DATE(paid_at) AS CHAR), COUNT(*), SUM(discount_amount), '' FROM coupon_settlement WHERE template_id = ? AND paid_at IS NOT NULL AND refunded_at IS NULL AND ? > 0 GROUP BY 1`,
		func(day string, n int, cents int64, _ string) {
			upd(day, func(c *stats.Counts) { c.Used, c.DiscountCents = n, cents })
		})
	q(`SELECT CAST(DATE(paid_at) AS CHAR), COUNT(*), SUM(discount_amount), '' FROM coupon_settlement WHERE template_id = ? AND refunded_at IS NOT NULL AND ? > 0 GROUP BY 1`,
		func(day string, n int, cents int64, _ string) {
			upd(day, func(c *stats.Counts) { c.Refunded, c.RefundedDiscountCents = n, cents })
		})
	if err := db.QueryRow(`SELECT COUNT(*) FROM coupon_settlement WHERE template_id = ? AND status = 'LOCKED'`, templateID).Scan(&tr.locked); err != nil {
		t.Fatal(err)
	}
	return tr
}

// checkAgainstSQL asks templateStats as the platform and compares every day and total with SQL.
func checkAgainstSQL(t *testing.T, st *stack.Stack, templateID int64, when string) *stats.TemplateStats {
	t.Helper()
	got, err := st.Stats.TemplateStats(st.Ctx, platform, templateID, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	want := sqlTruth(t, st.SQL, templateID)
	var total stats.Counts
	seen := map[string]bool{}
	for _, d := range got.Daily {
		seen[d.Date] = true
		if d.Counts != want.days[d.Date] {
			t.Errorf("%s: day %s: stats %+v, SQL %+v", when, d.Date, d.Counts, want.days[d.Date])
		}
		total = add(total, d.Counts)
	}
	for day, c := range want.days {
		if !seen[day] && c != (stats.Counts{}) {
			t.Errorf("%s: SQL has day %s (%+v) that the stats lack", when, day, c)
		}
	}
	if got.Total != total {
		t.Errorf("%s: total %+v is not the sum of the days %+v", when, got.Total, total)
	}
	if got.LockedCount != want.locked {
		t.Errorf("%s: lockedCount %d, SQL %d", when, got.LockedCount, want.locked)
	}
	return got
}

func add(a, b stats.Counts) stats.Counts {
	a.IssuedClaim += b.IssuedClaim
	a.IssuedDistribution += b.IssuedDistribution
	a.Used += b.Used
	a.DiscountCents += b.DiscountCents
	a.Refunded += b.Refunded
	a.RefundedDiscountCents += b.RefundedDiscountCents
	a.Expired += b.Expired
	return a
}

var platform = coupon.Actor{UserID: 9, Role: coupon.RolePlatform}

func user(id int64) coupon.Actor { return coupon.Actor{UserID: id, Role: coupon.RoleUser} }

// claim makes users claim one coupon each through the redeem script and persists them with the
// persister (async mode).
func claim(t *testing.T, st *stack.Stack, templateID int64, users ...int64) {
	t.Helper()
	for _, u := range users {
		r, err := st.Redeemer.Redeem(st.Ctx, u, templateID, fmt.Sprintf("r-%d-%d", u, time.Now().UnixNano()))
		if err != nil || r == nil {
			t.Fatalf("redeem user %d: %v", u, err)
		}
	}
	if _, err := st.Persister.Drain(st.Ctx, templateID); err != nil {
		t.Fatal(err)
	}
}

// distribute issues one coupon to each user through a distribution task.
func distribute(t *testing.T, st *stack.Stack, templateID int64, users ...int64) {
	t.Helper()
	var b strings.Builder
	b.WriteString("userId\n")
	for _, u := range users {
		fmt.Fprintf(&b, "%d\n", u)
	}
	task, err := st.Distribution.Create(st.Ctx, stack.Merchant, distribution.CreateInput{
		TemplateID: templateID, Name: "push", SendType: coupontask.SendTypeIMMEDIATE, FileName: "users.csv",
		File: strings.NewReader(b.String()),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Distribution.Run(st.Ctx, task.ID); err != nil {
		t.Fatal(err)
	}
}

// couponOf is the user's first coupon of the template.
func couponOf(t *testing.T, st *stack.Stack, templateID, userID int64) int64 {
	t.Helper()
	id, err := st.DB.UserCoupon.Query().Where(usercoupon.UserID(userID), usercoupon.TemplateID(templateID)).FirstID(st.Ctx)
	if err != nil {
		t.Fatalf("coupon of user %d: %v", userID, err)
	}
	return id
}

func order(id int64) checkout.Order {
	return checkout.Order{ID: id, Shop: stack.Merchant.Shop, Amount: decimal.NewFromInt(100)}
}

// flush deletes every data key of the test's namespace, as a FLUSHDB would.
func flush(t *testing.T, st *stack.Stack) {
	t.Helper()
	ctx := context.Background()
	iter := st.Redis.Scan(ctx, 0, keys.Namespace()+"*", 1000).Iterator()
	for iter.Next(ctx) {
		if err := st.Redis.Del(ctx, iter.Val()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
}

// archiveDue runs the real archive job (coupon/archive) with an age of 1 ns, so every EXPIRED or
// USED coupon no live settlement names moves to user_coupon_archive, and returns how many moved.
func archiveDue(t *testing.T, st *stack.Stack) int {
	t.Helper()
	res, err := archive.New(st.DB, st.Redis, archive.Config{After: time.Nanosecond}).Run(st.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("archive: moved %d, kept %d", res.Moved, res.Kept)
	return res.Moved
}
