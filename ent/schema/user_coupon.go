package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// userCouponFields are the columns shared by user_coupon and its archive. The id has no
// AUTO_INCREMENT (bulkWritten): T2 loads a batch's coupons with LOAD DATA, and an archived row
// keeps its coupon's id.
func userCouponFields() []ent.Field {
	return []ent.Field{
		snowflakeID(bulkWritten),
		field.Int64("user_id").Immutable(),
		field.Int64("template_id").Immutable(),
		field.String("redemption_id").Immutable().MaxLen(64).
			Comment("claim: the redeem script's id; distribution: derived from (task, row)"),
		field.Int("receive_count").Immutable().Positive().
			Comment("1-based: the nth coupon of this template for this user, claims and distribution alike"),
		field.Enum("source").Values("CLAIM", "DISTRIBUTION").Immutable(),
		field.Enum("status").Values("UNUSED", "LOCKED", "USED", "EXPIRED", "REVOKED").Default("UNUSED"),
		field.Time("valid_start_time").SchemaType(datetime),
		field.Time("valid_end_time").SchemaType(datetime),
		field.Int64("order_id").Optional().Nillable(),
		field.Time("used_at").SchemaType(datetime).Optional().Nillable(),
		optionalMoney("discount_amount"),
		field.String("request_id").Optional().Nillable().Immutable().MaxLen(64).
			Comment("the client's requestId of the claim that made it: a retry after Redis lost its answer finds it"),
		field.Int64("stock_batch_id").Optional().Nillable().Immutable().
			Comment("the stock_batch header whose unit it took (null: written before reservation batches)"),
	}
}

// UserCoupon is one coupon in a user's card bag. Sharded by user_id; every query carries user_id.
// Its code is not stored: it is derived from the id (coupon/code).
type UserCoupon struct{ ent.Schema }

// Annotations of UserCoupon.
func (UserCoupon) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "user_coupon"}}
}

// Mixin of UserCoupon.
func (UserCoupon) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of UserCoupon.
func (UserCoupon) Fields() []ent.Field { return userCouponFields() }

// Indexes of UserCoupon: three, within the hot table's budget of four (every claim writes each).
// A user's own reads (myCoupons, applicableCoupons, checkout) range over the user's coupons by the
// user_id prefix of the first: a user holds at most limitPerPerson coupons per template, and the archive
// moves the old ones out, so that range is small.
func (UserCoupon) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "template_id", "receive_count").Unique(),
		index.Fields("user_id", "template_id", "request_id").Unique(),
		index.Fields("redemption_id").Unique(),
	}
}

// UserCouponArchive keeps coupons that expired or were used long ago, out of the hot table
// (coupon/archive moves them, same id).
type UserCouponArchive struct{ ent.Schema }

// Annotations of UserCouponArchive.
func (UserCouponArchive) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "user_coupon_archive"}}
}

// Mixin of UserCouponArchive.
func (UserCouponArchive) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of UserCouponArchive.
func (UserCouponArchive) Fields() []ent.Field {
	return append(userCouponFields(), field.Time("archived_at").SchemaType(datetime))
}

// Indexes of UserCouponArchive.
func (UserCouponArchive) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "template_id"),
		// myCoupons with archived ones: (user_id, id) in index order.
		index.Fields("user_id"),
		index.Fields("template_id", "user_id"), // the reconciliation's per-template counts
	}
}
