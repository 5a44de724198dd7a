package issue

import "coupond/store"

// Groups splits items into their users' shards (store.UserShard over shards, as the engine
// routes user_id), keeping batch order within each group and ordering the groups by their first
// item, so each group is one T2 on one shard.
func Groups(items []Item, shards int) [][]Item {
	if shards <= 1 {
		return [][]Item{items}
	}
	at := map[int]int{} // shard → index in out
	var out [][]Item
	for _, it := range items {
		s := store.UserShard(it.UserID, shards)
		i, ok := at[s]
		if !ok {
			i = len(out)
			at[s] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], it)
	}
	return out
}
