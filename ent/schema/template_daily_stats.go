package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// TemplateDailyStats is the durable per-day funnel of one template (coupon/stats): day is the
// stats day in COUPON_STATS_TIMEZONE. issued counts every coupon issued, issued_distribution those
// of bulk distribution (claims are the rest); used and discount_total count payments confirmed
// with a coupon that day, refunded and refunded_discount the refunds of such payments that day;
// expired the coupons that expired that day. sealed: recomputed from MySQL after the day closed
// (final); until then the roll-up copies Redis's realtime counters here.
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
		field.Int("issued_distribution").Default(0),
		field.Int("refunded").Default(0),
		money("refunded_discount"),
		field.Bool("sealed").Default(false),
	}
}

// Indexes of TemplateDailyStats.
func (TemplateDailyStats) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("template_id", "day").Unique(),
		index.Fields("sealed", "day"),
	}
}
