package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CouponTemplateLog is the audit trail of administrative changes to a template.
type CouponTemplateLog struct{ ent.Schema }

// Annotations of CouponTemplateLog.
func (CouponTemplateLog) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "coupon_template_log"}}
}

// Fields of CouponTemplateLog.
func (CouponTemplateLog) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id"),
		field.Int64("shop_number").Immutable(),
		field.Int64("template_id").Immutable(),
		field.Int64("actor_id").Immutable(),
		field.String("actor_role").Immutable().MaxLen(16),
		field.String("action").Immutable().MaxLen(32),
		field.JSON("before", map[string]any{}).Optional(),
		field.JSON("after", map[string]any{}).Optional(),
		field.Time("created_at").SchemaType(datetime).Immutable().Default(timeNow),
	}
}

// Indexes of CouponTemplateLog.
func (CouponTemplateLog) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("shop_number", "template_id", "id"), // templateLog pages, newest (highest id) first
	}
}
