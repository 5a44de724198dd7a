package claim

import (
	"context"
	"strconv"
	"strings"

	"coupond/coupon/keys"
	"coupond/idgen"
)

// newRedemptionID is a new redemption id of a claim on stock shard s: "<template>-<seq>" when the
// template has one shard, "<template>.<shard>.<shards>-<seq>" when it has more, so the id names the
// keys of its claim.
func newRedemptionID(s keys.Shard) string {
	seq := strconv.FormatInt(idgen.Next(), 10)
	if s.Count == 1 {
		return strconv.FormatInt(s.Template, 10) + "-" + seq
	}
	return strconv.FormatInt(s.Template, 10) + "." + strconv.Itoa(s.Index) + "." + strconv.Itoa(s.Count) + "-" + seq
}

// redemptionShard is the stock shard of the claim with redemption id id (newRedemptionID); false
// when id is not one.
func redemptionShard(id string) (keys.Shard, bool) {
	head, _, ok := strings.Cut(id, "-")
	if !ok {
		return keys.Shard{}, false
	}
	parts := strings.Split(head, ".")
	tpl, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || tpl <= 0 {
		return keys.Shard{}, false
	}
	switch len(parts) {
	case 1:
		return keys.StockShard(tpl, 0, 1), true
	case 3:
		i, err1 := strconv.Atoi(parts[1])
		n, err2 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil || n < 2 || n > 64 || i < 0 || i >= n {
			return keys.Shard{}, false
		}
		return keys.StockShard(tpl, i, n), true
	}
	return keys.Shard{}, false
}

// shardCount is how many stock shards the template has (its outboxes, leases and claim keys).
func (p *Persister) shardCount(ctx context.Context, templateID int64) (int, error) {
	t, err := p.cache.Get(ctx, templateID)
	if err != nil {
		return 0, err
	}
	return t.StockShards(), nil
}
