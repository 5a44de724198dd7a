package store

import (
	"encoding/binary"
	"math/bits"
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// UserShard returns which of shards equal key ranges user lives in, exactly as Vitess routes a
// keyspace sharded by user_id with the xxhash vindex into that many shards (-80, 80- for 2; -40,
// 40-80, 80-c0, c0- for 4; …): the keyspace id is xxhash64 of the id's decimal text, written
// little-endian, and shard i holds the keyspace ids whose first 8 bytes, read big-endian, fall in
// [i·2⁶⁴/shards, (i+1)·2⁶⁴/shards). shards ≤ 1 puts every user in shard 0.
func UserShard(user int64, shards int) int {
	if shards <= 1 {
		return 0
	}
	var kid [8]byte
	binary.LittleEndian.PutUint64(kid[:], xxhash.Sum64String(strconv.FormatInt(user, 10)))
	hi, _ := bits.Mul64(binary.BigEndian.Uint64(kid[:]), uint64(shards))
	return int(hi)
}

// GroupByUserShard splits items into their users' shards (UserShard over shards, user naming
// each item's user), keeping the items' order within each group and ordering the groups by their
// first item. shards ≤ 1 gives items as the one group.
func GroupByUserShard[T any](items []T, shards int, user func(T) int64) [][]T {
	if shards <= 1 {
		return [][]T{items}
	}
	at := map[int]int{} // shard → index in out
	var out [][]T
	for _, it := range items {
		s := UserShard(user(it), shards)
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

// ShardUser is the smallest user id ≥ 0 in user's shard (UserShard over shards): one id per shard
// that names the shard in rows that belong to no user but must live there (coupon/ledger's expired
// counts). shards ≤ 1 gives 0. A shard of 8 nests in one of 4 and of 2, so the id of a user's shard
// of 8 is on the user's shard of 4 and 2 too.
func ShardUser(user int64, shards int) int64 {
	s := UserShard(user, shards)
	var id int64
	for UserShard(id, shards) != s {
		id++
	}
	return id
}
