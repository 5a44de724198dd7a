package issue

import "coupond/store"

// Groups splits items into their users' shards (store.GroupByUserShard over shards, as the
// engine routes user_id), keeping batch order within each group and ordering the groups by their
// first item, so each group is one T2 on one shard.
func Groups(items []Item, shards int) [][]Item {
	return store.GroupByUserShard(items, shards, func(it Item) int64 { return it.UserID })
}
