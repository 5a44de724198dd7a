package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// RedemptionFailure is a claim that Redis accepted but the database could not honour (its stock
// was exhausted: drift). The user's redemption shows FAILED with the reason.
type RedemptionFailure struct{ ent.Schema }

// Annotations of RedemptionFailure.
func (RedemptionFailure) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "redemption_failure"}}
}

// Fields of RedemptionFailure.
func (RedemptionFailure) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id"),
		field.Int64("user_id").Immutable(),
		field.Int64("template_id").Immutable(),
		field.String("redemption_id").Immutable().MaxLen(64),
		field.String("reason").Immutable().MaxLen(255),
		field.String("duplicate_of").Optional().Nillable().Immutable().MaxLen(64).
			Comment("a claim repeating an earlier one's requestId: that claim's redemption id, whose coupon it ends with"),
		field.Time("created_at").Immutable().Default(timeNow).SchemaType(datetime),
	}
}

// Indexes of RedemptionFailure.
func (RedemptionFailure) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "redemption_id").Unique(),
		index.Fields("template_id"), // the reconciliation's count of a template's failed claims
	}
}
