// Package schematype holds the value types stored in JSON columns of the ent schema, so that the
// schema and the domain share them without an import cycle.
package schematype

import "github.com/shopspring/decimal"

// ReceiveRule is a template's claim rule (receive_rule column).
type ReceiveRule struct {
	LimitPerPerson    int    `json:"limitPerPerson"`
	UsageInstructions string `json:"usageInstructions,omitempty"`
}

// ConsumeRule is a template's use rule (consume_rule column). Money is kept as decimal strings.
type ConsumeRule struct {
	ThresholdAmount   *decimal.Decimal `json:"thresholdAmount,omitempty"`
	DiscountAmount    *decimal.Decimal `json:"discountAmount,omitempty"`
	DiscountRate      *decimal.Decimal `json:"discountRate,omitempty"`
	MaxDiscountAmount *decimal.Decimal `json:"maxDiscountAmount,omitempty"`
	// ValidityHours, when set, makes a coupon valid for that many hours after its claim
	// instead of until the template's end.
	ValidityHours *int `json:"validityHours,omitempty"`
}

// BatchItem is one claim or distribution row a stock_batch header reserved a unit for: its user
// and redemption id, so a sweep or a reconciliation finds its coupon by the user's shard key, and
// the template's Redis epoch when Redis took its unit (0: unknown, before 2026-12-06), which
// orders it before or after a reconciliation's snapshot.
type BatchItem struct {
	User  int64  `json:"u"`
	Rid   string `json:"r"`
	Epoch int64  `json:"e,omitempty"`
}
