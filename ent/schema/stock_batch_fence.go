package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// StockBatchFence records, on one user shard, who decided a claim batch's share of that shard:
// the batch's T2 (WRITTEN, inserted in the T2's own transaction) or the sweep (FENCED, inserted
// before it counts the shard's coupons of a header a crashed or stalled persister left OPEN). The
// unique key (batch_id, user_id), user_id being the first user of the batch's items on that shard
// (which routes the row there), lets only one of them in: a T2 that comes after the sweep fails,
// and a sweep that comes after a T2 counts its coupons. Sharded by user_id like user_coupon.
type StockBatchFence struct{ ent.Schema }

// Annotations of StockBatchFence.
func (StockBatchFence) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "stock_batch_fence"}}
}

// Fields of StockBatchFence.
func (StockBatchFence) Fields() []ent.Field {
	return []ent.Field{
		snowflakeID(),
		field.Int64("batch_id").Immutable().Comment("the stock_batch header"),
		field.Int64("user_id").Immutable().Comment("the first user of the header's items on this shard"),
		field.Enum("state").Values("WRITTEN", "FENCED").Immutable(),
		field.Time("created_at").SchemaType(datetime).Immutable().Default(timeNow),
	}
}

// Indexes of StockBatchFence.
func (StockBatchFence) Indexes() []ent.Index {
	return []ent.Index{index.Fields("batch_id", "user_id").Unique()}
}
