package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CouponSettlement is a coupon's use on an order: locked, paid, canceled or refunded.
// Sharded by user_id; unique per (user, order, coupon). A live settlement (LOCKED or PAID) sets
// live_coupon_id and live_slot, which are NULL otherwise: their unique keys let a coupon be in one
// live settlement only, and an order carry one live coupon per stacking slot (MariaDB has no
// partial indexes; a unique key admits any number of NULLs).
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
		field.Int64("live_coupon_id").Optional().Nillable().
			Comment("coupon_id while the settlement is LOCKED or PAID, else NULL"),
		field.String("live_slot").Optional().Nillable().MaxLen(24).
			Comment("the order's stacking slot while LOCKED or PAID (S<shop> or P), else NULL"),
		field.Time("paid_at").SchemaType(datetime).Optional().Nillable(),
		field.Time("refunded_at").SchemaType(datetime).Optional().Nillable(),
	}
}

// Indexes of CouponSettlement.
func (CouponSettlement) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "order_id", "coupon_id").Unique(),
		index.Fields("user_id", "coupon_id", "status"),
		index.Fields("user_id", "live_coupon_id").Unique(),
		index.Fields("user_id", "order_id", "live_slot").Unique(),
		index.Fields("status", "lock_expires_at"), // the checkout sweep's expired locks
		// coupon/stats: a template's days rebuilt from MySQL (payments by paid_at, refunds among them)
		index.Fields("template_id", "paid_at"),
	}
}
