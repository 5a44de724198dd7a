package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CouponReminder asks to tell a user before a template's claim window opens. One row per (user,
// template, channel): creating it again re-arms the same row (version + 1: a new delivery).
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
		snowflakeID(),
		field.Int64("user_id").Immutable(),
		field.Int64("template_id").Immutable(),
		field.Enum("channel").Values("APP", "EMAIL"),
		field.Int("minutes_before").Positive(),
		field.Time("remind_at").SchemaType(datetime).Comment("the template's start − minutes_before"),
		field.Enum("status").Values("PENDING", "SENT", "FAILED", "CANCELED", "SKIPPED").Default("PENDING"),
		field.Int("version").Default(1).Comment("bumped each time the reminder is re-armed; names its delivery"),
		field.Int("attempts").Default(0).Comment("failed delivery attempts of this version"),
		field.Time("due_at").SchemaType(datetime).Comment("next delivery attempt: remind_at, then after each failure its backoff"),
		field.String("failure_reason").Optional().Nillable().MaxLen(255),
		field.Time("sent_at").SchemaType(datetime).Optional().Nillable(),
	}
}

// Indexes of CouponReminder.
func (CouponReminder) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "template_id", "channel").Unique(),
		index.Fields("template_id", "status", "remind_at"), // a bucket's pending reminders
		index.Fields("status", "due_at"),                   // the sweep's overdue ones
	}
}
