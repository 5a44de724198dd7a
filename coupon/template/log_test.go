package template

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"coupond/coupon"
	"coupond/coupon/keys"
)

// Every change is in the trail, newest first, with a readable actor and before/after JSON; pages
// follow each other without gaps; another shop and unknown ids are NOT_FOUND.
func TestLogListsEveryChangeNewestFirst(t *testing.T) {
	a, _, rdb := newAdmin(t, "log")
	ctx := context.Background()
	tpl := createTemplate(t, a, merchantA, nil)
	if _, err := a.IncreaseStock(ctx, merchantA, tpl.ID, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := a.IncreaseStock(ctx, platform, tpl.ID, 7); err != nil {
		t.Fatal(err)
	}
	// The start-up check drops a hash showing more stock than MySQL allows: a SYSTEM entry.
	rdb.SAdd(ctx, keys.OutboxIndex(), tpl.ID)
	rdb.HIncrBy(ctx, keys.Template(tpl.ID), "stock", 2)
	if fixed, err := a.cache.RepairStocks(ctx); err != nil || fixed[tpl.ID] != 2 {
		t.Fatalf("repair stocks = %v, %v", fixed, err)
	}
	if _, err := a.Terminate(ctx, merchantA, tpl.ID); err != nil {
		t.Fatal(err)
	}
	want := []struct{ actor, action string }{
		{"MERCHANT:1", ActionTerminate}, {"SYSTEM", ActionCacheStockDropped}, {"PLATFORM:9", ActionIncreaseStock},
		{"MERCHANT:1", ActionIncreaseStock}, {"MERCHANT:1", ActionCreate},
	}
	var got []LogEntry
	k := coupon.Keyset{Size: 2}
	for {
		p, err := a.Log(ctx, merchantA, tpl.ID, k)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != len(want) {
			t.Fatalf("total = %d, want %d", p.Total, len(want))
		}
		got = append(got, p.Items...)
		if !p.HasMore {
			break
		}
		k.After = p.Items[len(p.Items)-1].ID
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries over the pages, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Actor != w.actor || got[i].Action != w.action || got[i].At.IsZero() {
			t.Fatalf("entry %d = %+v, want %s by %s", i, got[i], w.action, w.actor)
		}
	}
	var before, after map[string]any
	if err := json.Unmarshal([]byte(*got[2].Before), &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(*got[2].After), &after); err != nil {
		t.Fatal(err)
	}
	if before["total"] != float64(1005) || after["total"] != float64(1012) {
		t.Fatalf("platform increase before %v after %v", before["total"], after["total"])
	}
	if got[4].Before != nil || got[4].After == nil {
		t.Fatalf("create entry: before %v after %v", got[4].Before, got[4].After)
	}
	if p, err := a.Log(ctx, platform, tpl.ID, coupon.Keyset{Size: 10}); err != nil || len(p.Items) != len(want) {
		t.Fatalf("platform: %d entries, %v", len(p.Items), err)
	}
	for _, actor := range []coupon.Actor{merchantB, {UserID: 5, Role: coupon.RoleUser}} {
		if _, err := a.Log(ctx, actor, tpl.ID, coupon.Keyset{Size: 10}); !errors.Is(err, coupon.ErrNotFound) {
			t.Fatalf("%+v: %v, want ErrNotFound", actor, err)
		}
	}
	if _, err := a.Log(ctx, merchantA, tpl.ID+1, coupon.Keyset{Size: 10}); !errors.Is(err, coupon.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}
