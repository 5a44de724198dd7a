package schema

import (
	"time"

	"coupond/idgen"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"
	"github.com/shopspring/decimal"
)

// snowflakeID is the 64-bit id of sharded tables (templates, user data): generated in process, so
// rows can be written in batches and moved between shards without renumbering.
func snowflakeID() ent.Field {
	return field.Int64("id").Immutable().Positive().DefaultFunc(idgen.Next)
}

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
