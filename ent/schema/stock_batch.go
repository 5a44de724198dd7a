package schema

import (
	"coupond/ent/schematype"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// StockBatch is the header of one reservation batch (coupon/issue): the stock units a batch of
// claims or distribution rows of one template took from the template row (T1), before their
// coupons were written on the users' shards (T2) and the unused units given back (T3). It lives
// on the template's shard (keyed by shop_number), so T1 and T3 touch one shard. At every instant
// total_stock = stock + issued + Σ reserved of the template's OPEN headers.
type StockBatch struct{ ent.Schema }

// Annotations of StockBatch.
func (StockBatch) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "stock_batch"}}
}

// Fields of StockBatch.
func (StockBatch) Fields() []ent.Field {
	return []ent.Field{
		snowflakeID(),
		field.Int64("shop_number").Immutable(),
		field.Int64("template_id").Immutable(),
		field.Int64("seq").Immutable().Comment("the template's batch_seq this header took: T1s of a template commit in seq order"),
		field.Enum("source").Values("CLAIM", "DISTRIBUTION").Immutable(),
		field.Int64("task_id").Optional().Nillable().Immutable().Comment("distribution: the task"),
		field.Int("task_start").Optional().Nillable().Immutable().Comment("distribution: the task's resume position before the batch"),
		field.Int("reserved").Immutable().NonNegative().Comment("units taken from the template's stock by T1"),
		field.Int("used").Default(0).NonNegative().Comment("coupons the batch wrote; set by T3"),
		field.Enum("state").Values("OPEN", "SETTLED").Default("OPEN"),
		field.JSON("items", []schematype.BatchItem{}).Immutable().
			SchemaType(map[string]string{dialect.MySQL: "mediumtext"}).
			Comment("the claims or rows the units were reserved for"),
		field.Time("created_at").SchemaType(datetime).Immutable().Default(timeNow),
		field.Time("settled_at").SchemaType(datetime).Optional().Nillable(),
	}
}

// Indexes of StockBatch.
func (StockBatch) Indexes() []ent.Index {
	return []ent.Index{
		// A template's OPEN headers (reconciliation, cache rebuild, the sweep), and a task's.
		index.Fields("template_id", "state"),
		index.Fields("template_id", "seq"), // the reconciliation's pages of users, in seq order
		index.Fields("state", "created_at"),
		index.Fields("task_id", "task_start"),
	}
}
