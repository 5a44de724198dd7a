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
	// Shards is how many Redis sub-stocks the stock is split into (StockShards); 0 in a cached
	// copy written before the field existed, which means 1.
	Shards int `json:"shards,omitempty"`
}

// StockShards is how many Redis sub-stocks the template's stock is split into: 1 (the template's
// own hash holds the stock) unless it was created with more.
func (t *Template) StockShards() int { return max(t.Shards, 1) }

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

// ThresholdAmount is the minimum order amount (THRESHOLD_OFF, optionally PERCENT_OFF).
func (t *Template) ThresholdAmount() *decimal.Decimal { return t.Consume.ThresholdAmount }

// DiscountAmount is the amount off (FIXED_OFF, THRESHOLD_OFF).
func (t *Template) DiscountAmount() *decimal.Decimal { return t.Consume.DiscountAmount }

// DiscountRate is the share of the price paid (PERCENT_OFF), in (0, 1).
func (t *Template) DiscountRate() *decimal.Decimal { return t.Consume.DiscountRate }

// MaxDiscountAmount caps a PERCENT_OFF discount, when set.
func (t *Template) MaxDiscountAmount() *decimal.Decimal { return t.Consume.MaxDiscountAmount }

// TemplateFromRow converts a database row. Times are UTC and cut to the millisecond, as the
// DATETIME(3) columns keep them, so a template read back equals the one written.
func TemplateFromRow(r *ent.CouponTemplate) *Template {
	return &Template{
		ID: r.ID, ShopNumber: r.ShopNumber, Name: r.Name, Source: r.Source, Target: r.Target,
		Goods: r.Goods, Type: r.Type, ValidStart: ms(r.ValidStartTime), ValidEnd: ms(r.ValidEndTime),
		TotalStock: r.TotalStock, Stock: r.Stock, Receive: r.ReceiveRule, Consume: r.ConsumeRule,
		RefundPolicy: r.RefundPolicy, Stored: r.Status, CreatedAt: ms(r.CreatedAt), Version: r.Version,
		Shards: r.StockShards,
	}
}

// Status is the client-facing status now.
func (t *Template) Status() TemplateStatus { return t.StatusAt(time.Now()) }

// ValidityHours is the relative validity of a claimed coupon, when set.
func (t *Template) ValidityHours() *int { return t.Consume.ValidityHours }

// UsageInstructions is the merchant's text on how to use the coupon, when set.
func (t *Template) UsageInstructions() *string {
	if t.Receive.UsageInstructions == "" {
		return nil
	}
	return &t.Receive.UsageInstructions
}

func ms(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }
