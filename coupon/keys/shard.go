package keys

import (
	"strconv"
	"strings"
	"sync"
)

// Stock shards. A template created with N > 1 stock shards splits its Redis stock into N
// sub-stocks, shard 0…N-1, each on a hash tag of its own (ShardTag) chosen so the N tags fall in N
// distinct, evenly spaced ranges of the 16384 Cluster slots: with N ≥ the number of masters every
// master holds some. Each user belongs to one shard (UserShard), and the keys of the user's claims
// on the template (claim hash, request keys, rate key, redemption keys, the outbox their claims go
// to) carry that shard's tag, so one claim is one single-slot script. With N = 1 the one shard's
// tag is the template's own tag {t<id>}, and every key is the template's key of old.

// SlotCount is the number of Redis Cluster hash slots.
const SlotCount = 16384

// Slot is the Redis Cluster hash slot of key: CRC16 (XMODEM) of its hash tag (the part between the
// first { and the next }, when not empty) or of the whole key, modulo SlotCount.
func Slot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for k := 0; k < len(key); k++ {
		crc ^= uint16(key[k]) << 8
		for b := 0; b < 8; b++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % SlotCount
}

// UserShard is the stock shard (0…n-1) user id belongs to among n: a 64-bit mix (splitmix64's
// finalizer) of the id, modulo n. Not id mod n: snowflake ids have mostly-zero low bits, so id mod
// n would put most users on shard 0. n ≤ 1 gives 0.
func UserShard(userID int64, n int) int {
	if n <= 1 {
		return 0
	}
	z := uint64(userID)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z % uint64(n))
}

// shardTags caches ShardTag's search: (template, n) → the n tags.
var shardTags sync.Map

type shardTagsKey struct {
	template int64
	n        int
}

// ShardTag is the hash tag of stock shard i of n of the template: Tag(templateID) when n ≤ 1, else
// "{t<id>/<i>/<salt>}" with the smallest salt ≥ 0 whose slot lies in the middle half of the i-th of n
// equal ranges of the slot space (so a master's range boundary, which need not match the n ranges
// exactly, never puts two shards on one master when the masters split the slots evenly). The
// choice is deterministic: every process and every run names the same keys.
func ShardTag(templateID int64, i, n int) string {
	if n <= 1 {
		return Tag(templateID)
	}
	k := shardTagsKey{templateID, n}
	if v, ok := shardTags.Load(k); ok {
		return v.([]string)[i]
	}
	tags := make([]string, n)
	for s := range tags {
		lo, hi := s*SlotCount/n, (s+1)*SlotCount/n
		w := hi - lo
		from, to := lo+w/4, hi-w/4 // the middle half of the range
		if to <= from {
			from, to = lo, hi
		}
		base := "t" + id(templateID) + "/" + strconv.Itoa(s) + "/"
		for salt := 0; ; salt++ {
			tag := base + strconv.Itoa(salt)
			if slot := Slot("{" + tag + "}"); slot >= from && slot < to {
				tags[s] = "{" + tag + "}"
				break
			}
		}
	}
	shardTags.Store(k, tags)
	return tags[i]
}

// Shard names the keys of one stock shard of a template. Build it with StockShard or UserStock.
type Shard struct {
	Template int64 // the template id
	Index    int   // the shard, 0…Count-1
	Count    int   // the template's stock shards (≥ 1)
	tag      string
}

// StockShard is shard i of the template's n stock shards (n ≤ 1: the one shard, the template's
// own keys).
func StockShard(templateID int64, i, n int) Shard {
	n = max(n, 1)
	return Shard{Template: templateID, Index: i, Count: n, tag: ShardTag(templateID, i, n)}
}

// UserStock is the stock shard user id claims from, among the template's n.
func UserStock(templateID, userID int64, n int) Shard {
	return StockShard(templateID, UserShard(userID, n), n)
}

// Tag is the shard's hash tag.
func (s Shard) Tag() string { return s.tag }

func (s Shard) key(suffix string) string { return Namespace() + s.tag + suffix }

// Stock is the shard's stock hash: with one shard the template cache hash (Template); with more,
// a hash with the fields of the template cache hash that the claim script reads (its "stock" the
// shard's sub-stock), written and kept by the template cache.
func (s Shard) Stock() string { return s.key(":tpl") }

// Null is the null-value key on the shard's slot (TemplateNull with one shard); template_put.lua
// deletes it with the shard's hash.
func (s Shard) Null() string { return s.key(":null") }

// Lock is the rebuild lock on the shard's slot (TemplateLock with one shard).
func (s Shard) Lock() string { return s.key(":lock") }

// ClaimCounter is a user's claim hash on the template (see the package function ClaimCounter).
func (s Shard) ClaimCounter(userID int64) string { return s.key(":u:" + id(userID)) }

// Outbox is the outbox stream of the shard's accepted claims.
func (s Shard) Outbox() string { return s.key(":outbox") }

// PersistLease is held by the one persister draining the shard's outbox at a time.
func (s Shard) PersistLease() string { return s.key(":persist") }

// Request remembers the answer to a user's claim with one client requestId.
func (s Shard) Request(userID int64, requestID string) string {
	return s.key(":req:" + id(userID) + ":" + requestID)
}

// Redemption maps a redemption id of the shard to its user while the claim may still be pending.
func (s Shard) Redemption(redemptionID string) string { return s.key(":rd:" + redemptionID) }

// UserRate counts a user's claim attempts on the template in the current rate window.
func (s Shard) UserRate(userID int64) string { return s.key(":rl:" + id(userID)) }

// Lends is the shard's journal of the units it lent to other shards of the template and whose
// loan is not settled yet: field the lend id, value LendEntry.
func (s Shard) Lends() string { return s.key(":lends") }

// Lent marks, on the lending shard, a lend that was settled, for ReceiptTTL: a replayed lend step
// finds it and lends nothing again.
func (s Shard) Lent(lendID string) string { return s.key(":lent:" + lendID) }

// Receipt marks, on the borrowing shard, what became of one lend: "1" received (its units are in
// this shard's stock), "0" cancelled (they go back to the lender). It lives ReceiptTTL.
func (s Shard) Receipt(lendID string) string { return s.key(":recv:" + lendID) }

// ReceiptTTL is how long a Receipt lives: far longer than a lend stays open (the sweep settles a
// lend within seconds of a crash), so a late retry of a receive finds it.
const ReceiptTTL = 24 * 60 * 60 // seconds

// DistributionJournal is a distribution task's journals of the batches it deducts from this shard
// (rows of the shard's users), a hash by batch start: what each batch's deduction script decided
// per row, kept until the batch is committed and its after-commit work done (no TTL: it is
// task-level state, which must outlive the longest run of a large file). A run has at most two
// batches of a task in flight: one being written while the next is deducted and reserved.
func (s Shard) DistributionJournal(taskID int64) string { return s.key(":dist:" + id(taskID)) }

// DistributionJournals is the shard's set of journal hashes with batches in flight (their keys):
// distribute.lua adds a hash's key when it writes a journal into it, distribute_after_commit.lua
// removes it when it deletes the hash's last journal, so a cache rebuild finds the units those
// batches hold.
func (s Shard) DistributionJournals() string { return s.key(":dists") }

// ClaimCounterPattern is the SCAN pattern of the shard's claim hashes: its hash tag names one slot.
func (s Shard) ClaimCounterPattern() string { return s.key(":u:*") }

// RedemptionShard is the stock shard of the claim with redemption id id: "<template>-<seq>" on a
// template with one shard, "<template>.<shard>.<shards>-<seq>" with more; false when id is not one.
func RedemptionShard(id string) (Shard, bool) {
	head, _, ok := strings.Cut(id, "-")
	if !ok {
		return Shard{}, false
	}
	parts := strings.Split(head, ".")
	tpl, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || tpl <= 0 {
		return Shard{}, false
	}
	switch len(parts) {
	case 1:
		return StockShard(tpl, 0, 1), true
	case 3:
		i, err1 := strconv.Atoi(parts[1])
		n, err2 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil || n < 2 || n > 64 || i < 0 || i >= n {
			return Shard{}, false
		}
		return StockShard(tpl, i, n), true
	}
	return Shard{}, false
}

// DistributionJournalTask returns the task of one of the shard's journal keys
// (DistributionJournal), or false when key is not one.
func (s Shard) DistributionJournalTask(key string) (int64, bool) {
	rest, ok := strings.CutPrefix(key, s.key(":dist:"))
	if !ok {
		return 0, false
	}
	task, err := strconv.ParseInt(rest, 10, 64)
	return task, err == nil && task > 0
}
