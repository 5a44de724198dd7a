package claim

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"coupond/coupon/keys"
	"coupond/ent/coupontemplate"
	"coupond/lua"

	"github.com/redis/go-redis/v9"
)

// outboxGroup is the consumer group of the persisters on every outbox stream.
const outboxGroup = "persist"

// claim is one outbox entry.
type claim struct {
	streamID     string
	redemptionID string
	userID       int64
	receiveCount int
	at           time.Time
	requestID    string // the client's, "" for none
	counted      int    // the user's Redis counter right after the claim; 0: unknown
	epoch        int64  // the template hash's epoch the claim carries (lua.OutboxEntry.Epoch)
}

// parseClaim reads one outbox entry.
func parseClaim(m redis.XMessage) (claim, error) {
	e, err := lua.ParseOutboxEntry(m)
	return claim{streamID: e.StreamID, redemptionID: e.RedemptionID, userID: e.UserID,
		receiveCount: e.ReceiveCount, at: e.At, requestID: e.RequestID, counted: e.Counted, epoch: e.Epoch}, err
}

// outboxReader hands out the batches of one outbox: first the entries a crashed persister left
// delivered but unacknowledged for ClaimIdle (XAUTOCLAIM, the pending list walked once), then
// new ones (XREADGROUP).
type outboxReader struct {
	p     *Persister
	key   string
	start string // XAUTOCLAIM cursor; "" once the pending list has been walked
}

// openOutbox makes sure the consumer group of stock shard s's outbox exists and returns its reader.
func (p *Persister) openOutbox(ctx context.Context, s keys.Shard) (*outboxReader, error) {
	key := s.Outbox()
	if err := p.rdb.XGroupCreateMkStream(ctx, key, outboxGroup, "0").Err(); err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return nil, fmt.Errorf("create consumer group: %w", err)
	}
	return &outboxReader{p: p, key: key, start: "0-0"}, nil
}

// next returns the next batch, or none when the outbox has nothing left for this consumer.
func (o *outboxReader) next(ctx context.Context) ([]redis.XMessage, error) {
	for o.start != "" {
		msgs, start, err := o.p.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
			Stream: o.key, Group: outboxGroup, MinIdle: o.p.cfg.ClaimIdle, Start: o.start,
			Count: int64(o.p.cfg.BatchSize), Consumer: o.p.cfg.Consumer,
		}).Result()
		if err != nil {
			return nil, fmt.Errorf("read outbox: %w", err)
		}
		if o.start = start; start == "0-0" {
			o.start = "" // the pending list has been walked once
		}
		if len(msgs) > 0 {
			return msgs, nil
		}
	}
	streams, err := o.p.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: outboxGroup, Consumer: o.p.cfg.Consumer, Streams: []string{o.key, ">"},
		Count: int64(o.p.cfg.BatchSize), Block: -1,
	}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read outbox: %w", err)
	case len(streams) == 0:
		return nil, nil
	}
	return streams[0].Messages, nil
}

// NonEmptyOutboxes returns the templates whose outbox holds claims (pending or unread), from the
// outbox index; a template with stock shards has one outbox per shard (its template hash tells
// how many; 1 when it cannot be read). A template leaves the index only once its outbox is empty and the database says
// it can take no more claims (terminated, or its end is past): an evicted cache hash says nothing.
func (p *Persister) NonEmptyOutboxes(ctx context.Context) ([]int64, error) {
	members, err := p.rdb.SMembers(ctx, keys.OutboxIndex()).Result()
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(members))
	shards := make([]int, len(members))
	for i, m := range members {
		ids[i], _ = strconv.ParseInt(m, 10, 64)
		if shards[i] = 1; ids[i] > 0 {
			if n, err := p.shardCount(ctx, ids[i]); err == nil {
				shards[i] = n
			}
		}
	}
	pipe := p.rdb.Pipeline()
	lens := make([][]*redis.IntCmd, len(members))
	for i, id := range ids {
		for s := range shards[i] {
			lens[i] = append(lens[i], pipe.XLen(ctx, keys.StockShard(id, s, shards[i]).Outbox()))
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	var out, empty []int64
	for i, id := range ids {
		queued := int64(0)
		for _, l := range lens[i] {
			queued += l.Val()
		}
		if queued > 0 {
			out = append(out, id)
		} else {
			empty = append(empty, id)
		}
	}
	return out, p.dropEnded(ctx, empty)
}

// dropEnded removes from the outbox index those of the given templates (with empty outboxes) that
// can take no more claims, or no longer exist.
func (p *Persister) dropEnded(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	open, err := p.db.CouponTemplate.Query().Where(coupontemplate.IDIn(ids...),
		coupontemplate.StatusEQ(coupontemplate.StatusACTIVE), coupontemplate.ValidEndTimeGT(p.now())).IDs(ctx)
	if err != nil {
		return fmt.Errorf("find ended templates: %w", err)
	}
	keep := map[int64]bool{}
	for _, id := range open {
		keep[id] = true
	}
	var drop []any
	for _, id := range ids {
		if !keep[id] {
			drop = append(drop, id)
		}
	}
	if len(drop) > 0 {
		return p.rdb.SRem(ctx, keys.OutboxIndex(), drop...).Err()
	}
	return nil
}

// ack acknowledges and deletes the batch's outbox entries ids. When Redis lost some of them after
// the batch read them (it restarted from an older AOF while the batch was in flight), their users
// are handed to repairRewound.
func (p *Persister) ack(ctx context.Context, s keys.Shard, claims []claim, ids []string, end time.Time) error {
	byStream := make(map[string]claim, len(claims))
	for _, c := range claims {
		byStream[c.streamID] = c
	}
	rkeys := make([]string, len(ids))
	for i, id := range ids {
		if c, ok := byStream[id]; ok {
			rkeys[i] = s.Redemption(c.redemptionID)
		}
	}
	lost, err := lua.OutboxAck(ctx, p.rdb, s.Outbox(), outboxGroup, ids, rkeys)
	if err != nil {
		return fmt.Errorf("acknowledge outbox entries: %w", err)
	}
	var users []int64
	for _, i := range lost {
		if c, ok := byStream[ids[i]]; ok { // a malformed entry has no claim to repair
			users = append(users, c.userID)
		}
	}
	if len(users) == 0 {
		return nil
	}
	return p.repairRewound(ctx, s, users, end)
}
