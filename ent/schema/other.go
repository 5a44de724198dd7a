package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

var timeNow = time.Now

// CouponSettlement is a coupon's use on an order: locked, paid, canceled or refunded.
// Sharded by user_id; unique per (user, order, coupon) so one coupon is never in two live orders twice.
type CouponSettlement struct{ ent.Schema }

// Annotations of CouponSettlement.
func (CouponSettlement) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "coupon_settlement"}}
}

// Mixin of CouponSettlement.
func (CouponSettlement) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of CouponSettlement.
func (CouponSettlement) Fields() []ent.Field {
	return []ent.Field{
		snowflakeID(),
		field.Int64("user_id").Immutable(),
		field.Int64("order_id").Immutable(),
		field.Int64("coupon_id").Immutable(),
		field.Int64("template_id").Immutable(),
		field.Enum("status").Values("LOCKED", "PAID", "CANCELED", "REFUNDED").Default("LOCKED"),
		money("order_amount"),
		money("discount_amount"),
		money("payable_amount"),
		field.Time("lock_expires_at").SchemaType(datetime).Optional().Nillable(),
	}
}

// Indexes of CouponSettlement.
func (CouponSettlement) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "order_id", "coupon_id").Unique(),
		index.Fields("user_id", "coupon_id", "status"),
	}
}

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
		index.Fields("shop_number", "template_id", "created_at"),
	}
}

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

// TemplateDailyStats is the durable per-day funnel of one template.
type TemplateDailyStats struct{ ent.Schema }

// Annotations of TemplateDailyStats.
func (TemplateDailyStats) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "template_daily_stats"}}
}

// Mixin of TemplateDailyStats.
func (TemplateDailyStats) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of TemplateDailyStats.
func (TemplateDailyStats) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id"),
		field.Int64("template_id").Immutable(),
		field.Int64("shop_number").Immutable(),
		field.Time("day").Immutable().SchemaType(map[string]string{dialect.MySQL: "date"}),
		field.Int("issued").Default(0),
		field.Int("used").Default(0),
		field.Int("expired").Default(0),
		money("discount_total"),
	}
}

// Indexes of TemplateDailyStats.
func (TemplateDailyStats) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("template_id", "day").Unique(),
	}
}
