package lua

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	outboxAck         = mustLoad("outbox_ack.lua")
	claimCounterRaise = mustLoad("claim_counter_raise.lua")
)

// maxAckIDs bounds the ids of one outbox_ack.lua call: the script passes them to XACK and XDEL
// with unpack, which Redis's Lua limits to a few thousand values.
const maxAckIDs = 1000

// OutboxAck runs outbox_ack.lua: it acknowledges (in group) and deletes the entries ids of the
// outbox stream, and returns the indexes into ids of the entries Redis had lost since they were
// read (no entry and no redemption key left). redemptions[i] is the redemption key of ids[i], or ""
// for an entry that has none (malformed: its index means nothing). More than maxAckIDs ids take
// one call per maxAckIDs.
func OutboxAck(ctx context.Context, rdb redis.Scripter, outbox, group string, ids, redemptions []string) (lost []int, err error) {
	if len(ids) != len(redemptions) {
		return nil, errors.New("lua: OutboxAck: one redemption key per entry id is required")
	}
	for from := 0; from < len(ids); from += maxAckIDs {
		to := min(from+maxAckIDs, len(ids))
		keys := make([]string, 0, 1+to-from)
		keys = append(keys, outbox)
		args := make([]any, 0, 1+to-from)
		args = append(args, group)
		for i := from; i < to; i++ {
			k := redemptions[i]
			if k == "" {
				k = outbox // a same-tag stand-in; such an entry has no claim, whatever is reported
			}
			keys = append(keys, k)
			args = append(args, ids[i])
		}
		pos, err := outboxAck.Run(ctx, rdb, keys, args...).Int64Slice()
		if err != nil {
			return nil, err // a retry of the whole ack reports the same entries: see the script
		}
		for _, p := range pos {
			lost = append(lost, from+int(p)-1)
		}
	}
	return lost, nil
}

// ClaimCounterRaise runs claim_counter_raise.lua: it raises each claim counter keys[i] to
// floors[i] when it is lower, a raised hash expiring at expireAt, and returns how many it raised.
// The keys must share one template's hash tag.
func ClaimCounterRaise(ctx context.Context, rdb redis.Scripter, keys []string, floors []int, expireAt time.Time) (int, error) {
	if len(keys) != len(floors) {
		return 0, errors.New("lua: ClaimCounterRaise: one floor per key is required")
	}
	if len(keys) == 0 {
		return 0, nil
	}
	args := make([]any, 0, 1+len(floors))
	args = append(args, expireAt.Unix())
	for _, f := range floors {
		args = append(args, f)
	}
	n, err := claimCounterRaise.Run(ctx, rdb, keys, args...).Int()
	return n, err
}
