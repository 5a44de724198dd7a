package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

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
