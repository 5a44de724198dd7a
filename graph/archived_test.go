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
	"coupond/graph/scalar"
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
			SetRedemptionID(fmt.Sprintf("arch-%d", i)).SetReceiveCount(i + 1).
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
				ID           string  `json:"id"`
				Code         string  `json:"code"`
				ReceiveCount int     `json:"receiveCount"`
				Status       string  `json:"status"`
				ArchivedAt   *string `json:"archivedAt"`
				Template     struct {
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
	  totalCount edges { cursor node { id code receiveCount status archivedAt template { id } } } pageInfo { hasNextPage endCursor } } }`
	var counts []int
	var after any
	for page := 0; page < 5; page++ {
		c := field[conn](t, e.do(e.token(user), q, map[string]any{"after": after, "all": true}), "myCoupons")
		if c.TotalCount != 5 {
			t.Fatalf("totalCount %d with archived, want 5", c.TotalCount)
		}
		for _, ed := range c.Edges {
			counts = append(counts, ed.Node.ReceiveCount)
			archived := ed.Node.ReceiveCount <= 3
			if id, err := scalar.ParseID(ed.Node.ID); err != nil || testCodes.Encode(id) != ed.Node.Code {
				t.Fatalf("edge %+v: the code is not its id's", ed.Node)
			}
			if (ed.Node.ArchivedAt != nil) != archived || ed.Node.Template.ID != tpl.ID {
				t.Fatalf("edge %+v: archivedAt set = %v, want %v", ed.Node, ed.Node.ArchivedAt != nil, archived)
			}
		}
		if !c.PageInfo.HasNextPage {
			break
		}
		after = *c.PageInfo.EndCursor
	}
	want := []int{5, 4, 3, 2, 1}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("pages with archived: receive counts %v, want %v", counts, want)
	}
	hot := field[conn](t, e.do(e.token(user), q, map[string]any{}), "myCoupons")
	if hot.TotalCount != 2 || len(hot.Edges) != 2 || hot.PageInfo.HasNextPage {
		t.Fatalf("without archived: %+v, want the 2 valid coupons only", hot)
	}
}
