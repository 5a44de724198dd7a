package graph

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/archivedue"
	"coupond/ent/usercoupon"
	"coupond/idgen"
)

func TestMyCouponsIncludeArchived(t *testing.T) {
	e := newEnv(t, "archived")
	tpl := e.create(shopA)
	tplID, _ := strconv.ParseInt(tpl.ID, 10, 64)
	user := coupon.Actor{UserID: 4242, Role: coupon.RoleUser}
	ctx := context.Background()
	long := time.Now().UTC().Add(-365 * 24 * time.Hour)
	for i := range 5 { // oldest first: 3 expired a year ago (archived below), 2 valid
		st, end, changed := usercoupon.StatusEXPIRED, long, long
		if i >= 3 {
			st, end, changed = usercoupon.StatusUNUSED, time.Now().Add(time.Hour), time.Now()
		}
		id := idgen.Next()
		if err := e.db.UserCoupon.Create().SetID(id).SetUserID(user.UserID).SetTemplateID(tplID).
			SetRedemptionID(fmt.Sprintf("arch-%d", i)).SetCode(fmt.Sprintf("arch-code-%d", i)).SetReceiveCount(i + 1).
			SetSource(usercoupon.SourceDISTRIBUTION).SetStatus(st).SetValidStartTime(long.Add(-time.Hour)).
			SetValidEndTime(end).SetUpdatedAt(changed).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if st == usercoupon.StatusEXPIRED { // queued for the archive, as the expiry does
			if err := archivedue.Add(ctx, e.db.ArchiveDue, changed, archivedue.Coupon{UserID: user.UserID, ID: id}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if res, err := e.stack.Archiver.Run(ctx); err != nil || res.Moved != 3 {
		t.Fatalf("archive: %+v, %v", res, err)
	}
	type conn struct {
		TotalCount int `json:"totalCount"`
		Edges      []struct {
			Cursor string `json:"cursor"`
			Node   struct {
				Code       string  `json:"code"`
				Status     string  `json:"status"`
				ArchivedAt *string `json:"archivedAt"`
				Template   struct {
					ID string `json:"id"`
				} `json:"template"`
			} `json:"node"`
		} `json:"edges"`
		PageInfo struct {
			HasNextPage bool    `json:"hasNextPage"`
			EndCursor   *string `json:"endCursor"`
		} `json:"pageInfo"`
	}
	q := `query($after: String, $all: Boolean) { myCoupons(first: 2, after: $after, includeArchived: $all) {
	  totalCount edges { cursor node { code status archivedAt template { id } } } pageInfo { hasNextPage endCursor } } }`
	var codes []string
	var after any
	for page := 0; page < 5; page++ {
		c := field[conn](t, e.do(e.token(user), q, map[string]any{"after": after, "all": true}), "myCoupons")
		if c.TotalCount != 5 {
			t.Fatalf("totalCount %d with archived, want 5", c.TotalCount)
		}
		for _, ed := range c.Edges {
			codes = append(codes, ed.Node.Code)
			archived := ed.Node.Code < "arch-code-3"
			if (ed.Node.ArchivedAt != nil) != archived || ed.Node.Template.ID != tpl.ID {
				t.Fatalf("edge %+v: archivedAt set = %v, want %v", ed.Node, ed.Node.ArchivedAt != nil, archived)
			}
		}
		if !c.PageInfo.HasNextPage {
			break
		}
		after = *c.PageInfo.EndCursor
	}
	want := []string{"arch-code-4", "arch-code-3", "arch-code-2", "arch-code-1", "arch-code-0"}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Fatalf("pages with archived: %v, want %v", codes, want)
	}
	hot := field[conn](t, e.do(e.token(user), q, map[string]any{}), "myCoupons")
	if hot.TotalCount != 2 || len(hot.Edges) != 2 || hot.PageInfo.HasNextPage {
		t.Fatalf("without archived: %+v, want the 2 valid coupons only", hot)
	}
}
