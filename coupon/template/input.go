package template

import (
	"strings"
	"time"
	"unicode/utf8"

	"coupond/coupon"
	"coupond/ent/coupontemplate"

	"github.com/shopspring/decimal"
)

// Limits of template input.
const (
	MaxTemplateStock     = 10_000_000
	MaxNameLength        = 64
	MaxGoodsLength       = 255
	MaxInstructionLength = 500
	MaxValidityHours     = 24 * 365 * 5
	// MaxStockShards is the most Redis sub-stocks a template's stock may be split into.
	MaxStockShards = 64
)

// maxMoney is the largest amount a DECIMAL(12,2) column holds.
var maxMoney = decimal.RequireFromString("9999999999.99")

// CreateInput is what a merchant submits to create a template (GraphQL CreateCouponTemplateInput).
type CreateInput struct {
	Name              string                       `json:"name"`
	Source            coupontemplate.Source        `json:"source"`
	Target            coupontemplate.Target        `json:"target"`
	Goods             *string                      `json:"goods,omitempty"`
	Type              coupontemplate.Type          `json:"type"`
	ValidStartTime    time.Time                    `json:"validStartTime"`
	ValidEndTime      time.Time                    `json:"validEndTime"`
	Stock             int                          `json:"stock"`
	LimitPerPerson    int                          `json:"limitPerPerson"`
	ThresholdAmount   *decimal.Decimal             `json:"thresholdAmount,omitempty"`
	DiscountAmount    *decimal.Decimal             `json:"discountAmount,omitempty"`
	DiscountRate      *decimal.Decimal             `json:"discountRate,omitempty"`
	MaxDiscountAmount *decimal.Decimal             `json:"maxDiscountAmount,omitempty"`
	ValidityHours     *int                         `json:"validityHours,omitempty"`
	RefundPolicy      *coupontemplate.RefundPolicy `json:"refundPolicy,omitempty"`
	UsageInstructions *string                      `json:"usageInstructions,omitempty"`
	// StockShards splits the Redis stock into 1 to MaxStockShards sub-stocks; nil takes the
	// Admin's default (COUPON_STOCK_SHARDS_DEFAULT).
	StockShards *int `json:"stockShards,omitempty"`
}

// validator collects every broken rule of one input.
type validator struct{ errs coupon.ValidationError }

func (v *validator) check(ok bool, field, message string) {
	if !ok {
		v.errs = append(v.errs, coupon.FieldError(field, message))
	}
}

// money checks an optional amount: when present it must be > 0, have at most 2 decimals and fit
// the column. It reports whether the amount is present and valid.
func (v *validator) money(d *decimal.Decimal, field string) bool {
	if d == nil {
		return false
	}
	switch {
	case !d.IsPositive():
		v.check(false, field, field+" must be greater than 0")
	case !d.Equal(d.Round(2)):
		v.check(false, field, field+" must have at most 2 decimals")
	case d.GreaterThan(maxMoney):
		v.check(false, field, field+" is too large")
	default:
		return true
	}
	return false
}

// absent checks that a field that does not apply to the discount type is not set.
func (v *validator) absent(d *decimal.Decimal, field string, typ coupontemplate.Type) {
	v.check(d == nil, field, field+" does not apply to "+string(typ)+" coupons")
}

// Validate checks every rule and returns a coupon.ValidationError listing all broken ones (nil when valid).
// Money is compared as decimals, never by scale (7.00 equals 7); every rule has a test.
func (in *CreateInput) Validate(now time.Time) error {
	var v validator
	name := strings.TrimSpace(in.Name)
	v.check(name != "", "name", "name must not be empty")
	v.check(utf8.RuneCountInString(name) <= MaxNameLength, "name", "name must be at most 64 characters")

	v.check(coupontemplate.SourceValidator(in.Source) == nil, "source", "unknown source")
	v.check(coupontemplate.TypeValidator(in.Type) == nil, "type", "unknown type")
	v.check(in.ValidEndTime.After(in.ValidStartTime), "validEndTime", "validEndTime must be after validStartTime")
	v.check(in.ValidEndTime.After(now), "validEndTime", "validEndTime is already past")

	v.check(in.Stock >= 1 && in.Stock <= MaxTemplateStock, "stock", "stock must be between 1 and 10000000")
	v.check(in.LimitPerPerson >= 1 && in.LimitPerPerson <= max(in.Stock, 1), "limitPerPerson",
		"limitPerPerson must be between 1 and stock")

	v.target(in)
	v.discount(in)

	if in.ValidityHours != nil {
		v.check(*in.ValidityHours >= 1 && *in.ValidityHours <= MaxValidityHours, "validityHours",
			"validityHours must be between 1 and 43800")
	}
	if in.RefundPolicy != nil {
		v.check(coupontemplate.RefundPolicyValidator(*in.RefundPolicy) == nil, "refundPolicy", "unknown refundPolicy")
	}
	if in.UsageInstructions != nil {
		v.check(utf8.RuneCountInString(*in.UsageInstructions) <= MaxInstructionLength, "usageInstructions",
			"usageInstructions must be at most 500 characters")
	}
	if in.StockShards != nil {
		v.check(*in.StockShards >= 1 && *in.StockShards <= MaxStockShards, "stockShards", "stockShards must be between 1 and 64")
	}
	if len(v.errs) > 0 {
		return v.errs
	}
	return nil
}

// target checks target and goods.
func (v *validator) target(in *CreateInput) {
	goods := ""
	if in.Goods != nil {
		goods = strings.TrimSpace(*in.Goods)
	}
	switch in.Target {
	case coupontemplate.TargetPRODUCT:
		v.check(goods != "", "goods", "goods are required when target is PRODUCT")
		v.check(len(goods) <= MaxGoodsLength, "goods", "goods must be at most 255 bytes")
	case coupontemplate.TargetSHOP_WIDE:
		v.check(goods == "", "goods", "goods only apply when target is PRODUCT")
	default:
		v.check(false, "target", "unknown target")
	}
}

// discount checks the amounts and rate of the template's type.
func (v *validator) discount(in *CreateInput) {
	threshold := v.money(in.ThresholdAmount, "thresholdAmount")
	discount := v.money(in.DiscountAmount, "discountAmount")
	v.money(in.MaxDiscountAmount, "maxDiscountAmount") // optional cap of PERCENT_OFF
	switch in.Type {
	case coupontemplate.TypeFIXED_OFF:
		v.check(discount, "discountAmount", "FIXED_OFF needs a positive discountAmount")
		v.absent(in.DiscountRate, "discountRate", in.Type)
		v.absent(in.MaxDiscountAmount, "maxDiscountAmount", in.Type)
	case coupontemplate.TypeTHRESHOLD_OFF:
		v.check(threshold, "thresholdAmount", "THRESHOLD_OFF needs a positive thresholdAmount")
		v.check(discount, "discountAmount", "THRESHOLD_OFF needs a positive discountAmount")
		if threshold && discount {
			v.check(in.DiscountAmount.LessThan(*in.ThresholdAmount), "discountAmount",
				"discountAmount must be less than thresholdAmount")
		}
		v.absent(in.DiscountRate, "discountRate", in.Type)
		v.absent(in.MaxDiscountAmount, "maxDiscountAmount", in.Type)
	case coupontemplate.TypePERCENT_OFF:
		r := in.DiscountRate
		v.check(r != nil && r.IsPositive() && r.LessThan(decimal.NewFromInt(1)), "discountRate",
			"PERCENT_OFF needs a discountRate strictly between 0 and 1 (the share of the price paid)")
		v.check(r == nil || r.Equal(r.Round(4)), "discountRate", "discountRate must have at most 4 decimals")
		v.absent(in.DiscountAmount, "discountAmount", in.Type)
	}
}
