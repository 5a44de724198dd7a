package schema

import (
	"coupond/ent/schematype"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CouponTemplate is a coupon kind a shop (or the platform) issues with limited stock.
// Sharded by shop_number; every query carries shop_number or id.
type CouponTemplate struct{ ent.Schema }

// Annotations of CouponTemplate.
func (CouponTemplate) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "coupon_template"}}
}

// Mixin of CouponTemplate.
func (CouponTemplate) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of CouponTemplate.
func (CouponTemplate) Fields() []ent.Field {
	return []ent.Field{
		snowflakeID(),
		field.Int64("shop_number").Immutable(),
		field.String("name").MaxLen(64),
		field.Enum("source").Values("SHOP", "PLATFORM"),
		field.Enum("target").Values("PRODUCT", "SHOP_WIDE"),
		field.String("goods").Optional().Nillable().MaxLen(255),
		field.Enum("type").Values("FIXED_OFF", "THRESHOLD_OFF", "PERCENT_OFF"),
		field.Time("valid_start_time").SchemaType(datetime),
		field.Time("valid_end_time").SchemaType(datetime),
		field.Int("total_stock").NonNegative(),
		field.Int("stock").NonNegative().Comment("remaining stock in the database"),
		field.Int("issued").Default(0).NonNegative().Comment("coupons written by settled stock batches: total_stock = stock + issued + Σ reserved of OPEN stock_batch headers"),
		field.Int64("batch_seq").Default(0).Comment("the last stock_batch seq taken by T1"),
		field.JSON("receive_rule", schematype.ReceiveRule{}),
		field.JSON("consume_rule", schematype.ConsumeRule{}),
		field.Enum("refund_policy").Values("RETURN", "FORFEIT").Default("RETURN"),
		field.Enum("status").Values("ACTIVE", "ENDED").Default("ACTIVE"),
		field.Int64("created_by").Immutable().Comment("user id of the creator"),
		field.Int("version").Default(0).Comment("bumped by every administrative change"),
		field.Int("stock_shards").Default(1).Range(1, 64).Immutable().Comment("Redis sub-stocks the stock is split into (1: one stock, the hash of the template)"),
	}
}

// Indexes of CouponTemplate.
func (CouponTemplate) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("shop_number", "id"),
		index.Fields("shop_number", "status", "valid_end_time"),
	}
}
