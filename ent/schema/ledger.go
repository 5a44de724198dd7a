package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// quarterHour is the type of a ledger's bucket: the UTC start of a quarter of an hour (coupon/ledger).
var quarterHour = map[string]string{dialect.MySQL: "datetime"}

// IssuedLedger counts a template's coupons by the quarter hour (UTC) of their created_at and their
// source: n is added by T3 of the reservation batch whose header the coupons carry, in T3's guarded
// transaction (coupon/issue.Settle), so each coupon is counted once. It lives on the template's
// shard (keyed by shop_number), as the header does; coupon/stats sums a day's buckets when it seals
// the day.
type IssuedLedger struct{ ent.Schema }

// Annotations of IssuedLedger.
func (IssuedLedger) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "issued_ledger"}}
}

// Fields of IssuedLedger.
func (IssuedLedger) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id"),
		field.Int64("shop_number").Immutable(),
		field.Int64("template_id").Immutable(),
		field.Time("bucket").Immutable().SchemaType(quarterHour),
		field.Enum("source").Values("CLAIM", "DISTRIBUTION").Immutable(),
		field.Int("n").NonNegative(),
	}
}

// Indexes of IssuedLedger.
func (IssuedLedger) Indexes() []ent.Index {
	return []ent.Index{index.Fields("template_id", "bucket", "source").Unique()}
}

// ExpiredLedger counts a template's coupons that became EXPIRED by the quarter hour (UTC) of that
// transition (their updated_at): n is added by the transaction that expires them (coupon/expiry,
// and a checkout release or refund past the coupon's end), on its user shard. user_id names that
// shard (any user of it; the expirer uses one per shard: store.ShardUser), so the table is sharded
// by user_id like user_coupon; coupon/stats sums every row of a day's buckets (all shards) when it
// seals the day.
type ExpiredLedger struct{ ent.Schema }

// Annotations of ExpiredLedger.
func (ExpiredLedger) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "expired_ledger"}}
}

// Fields of ExpiredLedger.
func (ExpiredLedger) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id"),
		field.Int64("user_id").Immutable().Comment("a user of the shard the row lives on (its shard key)"),
		field.Int64("template_id").Immutable(),
		field.Time("bucket").Immutable().SchemaType(quarterHour),
		field.Int("n").NonNegative(),
	}
}

// Indexes of ExpiredLedger.
func (ExpiredLedger) Indexes() []ent.Index {
	return []ent.Index{index.Fields("template_id", "bucket", "user_id").Unique()}
}
