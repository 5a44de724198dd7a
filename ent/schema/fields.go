package schema

import (
	"time"

	"coupond/idgen"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"
	"github.com/shopspring/decimal"
)

// snowflakeID is the 64-bit id of sharded tables (templates, user data): generated in process, so
// rows can be written in batches and moved between shards without renumbering. ann annotates the
// column (bulkWritten: no AUTO_INCREMENT attribute).
func snowflakeID(ann ...schema.Annotation) ent.Field {
	return field.Int64("id").Immutable().Positive().DefaultFunc(idgen.Next).Annotations(ann...)
}

// bulkWritten leaves the id column without AUTO_INCREMENT, for a table written by statements of
// unknown row count (LOAD DATA, INSERT … SELECT): under innodb_autoinc_lock_mode 1 (MariaDB's
// default) such a statement holds the table's AUTO-INC lock to its end, and every single-row
// INSERT into the table (a claim's coupon) waits behind it. coupond assigns every id itself.
var bulkWritten = entsql.Annotation{Incremental: new(bool)}

var moneyType = map[string]string{dialect.MySQL: "decimal(12,2)"}

// money is a DECIMAL(12,2) column read and written as decimal.Decimal.
func money(name string) ent.Field {
	return field.Other(name, decimal.Decimal{}).SchemaType(moneyType).Default(decimal.Zero)
}

// optionalMoney is a nullable DECIMAL(12,2) column.
func optionalMoney(name string) ent.Field {
	return field.Other(name, &decimal.Decimal{}).SchemaType(moneyType).Optional().Nillable()
}

// datetime makes a time column DATETIME(3): millisecond precision and no 2038 limit (TIMESTAMP has
// one, and coupons may be valid for years). Values are UTC: the DSN sets loc=UTC.
var datetime = map[string]string{dialect.MySQL: "datetime(3)"}

// timeNow is the default of created_at columns.
var timeNow = time.Now

// TimeMixin adds created_at and updated_at.
type TimeMixin struct{ mixin.Schema }

// Fields of TimeMixin.
func (TimeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").SchemaType(datetime).Immutable().Default(time.Now),
		field.Time("updated_at").SchemaType(datetime).Default(time.Now).UpdateDefault(time.Now),
	}
}
