package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ArchiveDue is the archive's queue: one row per coupon that reached EXPIRED or USED (or whose
// last live settlement was refunded while it stayed USED), written by that transition in its own
// transaction, and deleted by the archive batch that moves or keeps the coupon. Sharded by
// user_id like user_coupon: a coupon's row lives on its user's shard.
type ArchiveDue struct{ ent.Schema }

// Annotations of ArchiveDue.
func (ArchiveDue) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "archive_due"}}
}

// Fields of ArchiveDue.
func (ArchiveDue) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id").Immutable().Positive().Comment("the coupon's id (user_coupon.id)"),
		field.Int64("user_id").Immutable(),
		field.Time("ended_at").SchemaType(datetime).
			Comment("when the coupon's last transition made it due: the archive moves it Config.After later"),
	}
}

// Indexes of ArchiveDue.
func (ArchiveDue) Indexes() []ent.Index {
	return []ent.Index{
		// The archive's batches: the oldest entries first, (ended_at, id) in index order.
		index.Fields("ended_at"),
	}
}
