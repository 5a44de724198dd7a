package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

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
