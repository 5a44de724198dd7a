package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CouponTask is a bulk distribution of a template to the users listed in an uploaded Excel file.
type CouponTask struct{ ent.Schema }

// Annotations of CouponTask.
func (CouponTask) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "coupon_task"}}
}

// Mixin of CouponTask.
func (CouponTask) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of CouponTask.
func (CouponTask) Fields() []ent.Field {
	return []ent.Field{
		snowflakeID(),
		field.Int64("shop_number").Immutable(),
		field.Int64("template_id").Immutable(),
		field.String("name").MaxLen(128),
		field.String("file_path").Immutable().MaxLen(512).Comment("where we stored the upload"),
		field.String("file_name").Immutable().MaxLen(255).Comment("the uploader's file name, for display"),
		field.Enum("send_type").Values("IMMEDIATE", "SCHEDULED"),
		field.Time("send_time").SchemaType(datetime).Optional().Nillable(),
		field.Int("send_num").Optional().Nillable().Comment("rows in the file; null until counted"),
		field.Int("processed_rows").Default(0),
		field.Int("success_count").Default(0),
		field.Int("fail_count").Default(0),
		field.Enum("status").Values("PENDING", "IN_PROGRESS", "SUCCESS", "FAILED", "CANCELED").Default("PENDING"),
		field.String("failure_report_path").Optional().Nillable().MaxLen(512),
		field.String("sheet_name").Optional().Nillable().Immutable().MaxLen(64).Comment("the worksheet to read; null: the first"),
		field.Int("resume_row").Default(0).Comment("the last spreadsheet row (CSV line) whose outcome is committed"),
		field.String("failure_reason").Optional().Nillable().MaxLen(255).Comment("why a FAILED task could not run"),
		field.Bool("file_deleted").Default(false).Comment("the upload was removed by the retention job"),
		field.Int64("operator_id").Immutable(),
		field.Time("completed_at").SchemaType(datetime).Optional().Nillable(),
	}
}

// Indexes of CouponTask.
func (CouponTask) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("shop_number", "id"),
		index.Fields("status", "send_time"),
	}
}

// CouponTaskFailure is one row of a distribution file that did not become a coupon.
type CouponTaskFailure struct{ ent.Schema }

// Annotations of CouponTaskFailure.
func (CouponTaskFailure) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "coupon_task_failure"}}
}

// Fields of CouponTaskFailure.
func (CouponTaskFailure) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id"),
		field.Int64("task_id").Immutable(),
		field.Int64("shop_number").Immutable().Default(0).
			Comment("the task's shop: the template keyspace's shard key (sharding/vschema.json); 0 on rows written before the distribution batch sets it"),
		field.Int("row_num").Immutable(),
		field.String("user_id").Optional().Nillable().MaxLen(64).Comment("as written in the file"),
		field.String("code").MaxLen(32).Default("").Comment("machine code: OUT_OF_STOCK, LIMIT_REACHED, DUPLICATE_IN_FILE, INVALID_USER_ID, TEMPLATE_ENDED, …"),
		field.String("reason").MaxLen(255),
		field.Time("created_at").SchemaType(datetime).Immutable().Default(timeNow),
	}
}

// Indexes of CouponTaskFailure: the failure report and the failures connection read by task in row order.
func (CouponTaskFailure) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("task_id", "row_num").Unique(),
	}
}
