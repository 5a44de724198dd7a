package issue

import (
	"context"
	"fmt"
	"slices"
	"time"

	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/lua"

	"github.com/redis/go-redis/v9"
)

// HeldCounts returns how many coupons of the template MySQL holds for each of users (users
// holding none are absent), archived ones included: one grouped query per 500 users and one read
// of the archive.
func HeldCounts(ctx context.Context, db *ent.Client, templateID int64, users []int64) (map[int64]int, error) {
	users = slices.Compact(slices.Sorted(slices.Values(users)))
	held := make(map[int64]int, len(users))
	for chunk := range slices.Chunk(users, 500) {
		var counts []struct {
			UserID int64 `json:"user_id"`
			Count  int   `json:"count"`
		}
		err := db.UserCoupon.Query().Where(usercoupon.UserIDIn(chunk...), usercoupon.TemplateID(templateID)).
			GroupBy(usercoupon.FieldUserID).Aggregate(ent.Count()).Scan(ctx, &counts)
		if err != nil {
			return nil, fmt.Errorf("count coupons: %w", err)
		}
		for _, c := range counts {
			held[c.UserID] = c.Count
		}
	}
	archived, err := ArchivedSlots(ctx, db.UserCouponArchive, templateID, users)
	if err != nil {
		return nil, err
	}
	for _, a := range archived {
		held[a.UserID]++
	}
	return held, nil
}

// endedCounterTTL is how long a raised counter of a template past its end is kept.
const endedCounterTTL = 7 * 24 * time.Hour

// RaiseCounters raises the claim counter of each user in held to held[user] when it is lower
// (never lowers one; a concurrent claim's increment is kept), a raised hash expiring at the
// template's end (or a week after now when end has passed), in one script (lua.ClaimCounterRaise)
// per stock shard of the users (shards: the template's StockShards; a user's counter lives on its
// shard's slot).
func RaiseCounters(ctx context.Context, rdb redis.Scripter, templateID int64, shards int, held map[int64]int, end, now time.Time) error {
	if len(held) == 0 {
		return nil
	}
	if !end.After(now) {
		end = now.Add(endedCounterTTL)
	}
	type group struct {
		keys   []string
		floors []int
	}
	groups := map[int]*group{}
	for user, n := range held {
		s := keys.UserStock(templateID, user, shards)
		g := groups[s.Index]
		if g == nil {
			g = &group{}
			groups[s.Index] = g
		}
		g.keys = append(g.keys, s.ClaimCounter(user))
		g.floors = append(g.floors, n)
	}
	for _, g := range groups {
		if _, err := lua.ClaimCounterRaise(ctx, rdb, g.keys, g.floors, end); err != nil {
			return fmt.Errorf("raise claim counters: %w", err)
		}
	}
	return nil
}
