package claim

import (
	"context"
	"strconv"

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

// shardCount is how many stock shards the template has (its outboxes, leases and claim keys).
func (p *Persister) shardCount(ctx context.Context, templateID int64) (int, error) {
	t, err := p.cache.Get(ctx, templateID)
	if err != nil {
		return 0, err
	}
	return t.StockShards(), nil
}
