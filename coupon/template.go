package coupon

import (
	"time"

	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/ent/schematype"

	"github.com/shopspring/decimal"
)

// TemplateStatus as clients see it: NOT_STARTED and ACTIVE are both "ACTIVE" in the database and
// told apart by the claim window; ENDED is either terminated or past its end.
type TemplateStatus string

// Template statuses.
const (
	StatusNotStarted TemplateStatus = "NOT_STARTED"
	StatusActive     TemplateStatus = "ACTIVE"
	StatusEnded      TemplateStatus = "ENDED"
)

// Template is a coupon template as the domain and the cache see it.
type Template struct {
	ID           int64                       `json:"id"`
	ShopNumber   int64                       `json:"shop"`
	Name         string                      `json:"name"`
	Source       coupontemplate.Source       `json:"source"`
	Target       coupontemplate.Target       `json:"target"`
	Goods        *string                     `json:"goods,omitempty"`
	Type         coupontemplate.Type         `json:"type"`
	ValidStart   time.Time                   `json:"start"`
	ValidEnd     time.Time                   `json:"end"`
	TotalStock   int                         `json:"total"`
	Stock        int                         `json:"stock"`
	Receive      schematype.ReceiveRule      `json:"receive"`
	Consume      schematype.ConsumeRule      `json:"consume"`
	RefundPolicy coupontemplate.RefundPolicy `json:"refund"`
	Stored       coupontemplate.Status       `json:"status"` // ACTIVE or ENDED (terminated)
	CreatedAt    time.Time                   `json:"created"`
	Version      int                         `json:"version"`
}

// StatusAt is the client-facing status at time now.
func (t *Template) StatusAt(now time.Time) TemplateStatus {
	switch {
	case t.Stored == coupontemplate.StatusENDED || !now.Before(t.ValidEnd):
		return StatusEnded
	case now.Before(t.ValidStart):
		return StatusNotStarted
	}
	return StatusActive
}

// LimitPerPerson is how many coupons of this template one user may hold in all.
func (t *Template) LimitPerPerson() int { return t.Receive.LimitPerPerson }

// Discount fields, for the API.
func (t *Template) ThresholdAmount() *decimal.Decimal   { return t.Consume.ThresholdAmount }
func (t *Template) DiscountAmount() *decimal.Decimal    { return t.Consume.DiscountAmount }
func (t *Template) DiscountRate() *decimal.Decimal      { return t.Consume.DiscountRate }
func (t *Template) MaxDiscountAmount() *decimal.Decimal { return t.Consume.MaxDiscountAmount }

// templateFromEnt converts a database row.
func templateFromEnt(r *ent.CouponTemplate) *Template {
	return &Template{
		ID: r.ID, ShopNumber: r.ShopNumber, Name: r.Name, Source: r.Source, Target: r.Target,
		Goods: r.Goods, Type: r.Type, ValidStart: r.ValidStartTime.UTC(), ValidEnd: r.ValidEndTime.UTC(),
		TotalStock: r.TotalStock, Stock: r.Stock, Receive: r.ReceiveRule, Consume: r.ConsumeRule,
		RefundPolicy: r.RefundPolicy, Stored: r.Status, CreatedAt: r.CreatedAt.UTC(), Version: r.Version,
	}
}
