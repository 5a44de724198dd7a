package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CouponReminder asks to tell a user before a template's claim window opens.
type CouponReminder struct{ ent.Schema }

// Annotations of CouponReminder.
func (CouponReminder) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "coupon_reminder"}}
}

// Mixin of CouponReminder.
func (CouponReminder) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of CouponReminder.
func (CouponReminder) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id"),
		field.Int64("user_id").Immutable(),
		field.Int64("template_id").Immutable(),
		field.Enum("channel").Values("APP", "EMAIL"),
		field.Int("minutes_before").Positive(),
		field.Time("remind_at").SchemaType(datetime),
		field.Enum("status").Values("PENDING", "SENT", "CANCELED").Default("PENDING"),
	}
}

// Indexes of CouponReminder.
func (CouponReminder) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "template_id", "channel").Unique(),
	}
}
