package template

import (
	"slices"
	"strings"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/ent/coupontemplate"

	"github.com/shopspring/decimal"
)

func dec(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }
func str(s string) *string          { return &s }
func num(n int) *int                { return &n }

var validationNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// validThresholdInput is a valid THRESHOLD_OFF input; each case below breaks one rule.
func validThresholdInput() CreateInput {
	return CreateInput{
		Name: "Double 11: 20 off 200", Source: coupontemplate.SourceSHOP, Target: coupontemplate.TargetSHOP_WIDE,
		Type:           coupontemplate.TypeTHRESHOLD_OFF,
		ValidStartTime: validationNow.Add(-time.Hour), // a start in the past is fine
		ValidEndTime:   validationNow.Add(24 * time.Hour),
		Stock:          1000, LimitPerPerson: 2,
		ThresholdAmount: dec("200"), DiscountAmount: dec("20.00"),
	}
}

func TestValidateAcceptsValidInputs(t *testing.T) {
	cases := map[string]func(*CreateInput){
		"threshold off":          func(*CreateInput) {},
		"stock at maximum":       func(in *CreateInput) { in.Stock = 10_000_000; in.LimitPerPerson = 10_000_000 },
		"limit equals stock":     func(in *CreateInput) { in.Stock = 3; in.LimitPerPerson = 3 },
		"64-character name":      func(in *CreateInput) { in.Name = strings.Repeat("券", 64) },
		"product target":         func(in *CreateInput) { in.Target = coupontemplate.TargetPRODUCT; in.Goods = str("sku-1") },
		"discount scale differs": func(in *CreateInput) { in.ThresholdAmount = dec("7"); in.DiscountAmount = dec("6.99") },
		"fixed off": func(in *CreateInput) {
			in.Type = coupontemplate.TypeFIXED_OFF
			in.ThresholdAmount = nil
		},
		"percent off with cap": func(in *CreateInput) {
			in.Type = coupontemplate.TypePERCENT_OFF
			in.DiscountAmount, in.DiscountRate, in.MaxDiscountAmount = nil, dec("0.85"), dec("50")
		},
		"relative validity": func(in *CreateInput) { in.ValidityHours = num(72) },
		"refund policy":     func(in *CreateInput) { p := coupontemplate.RefundPolicyFORFEIT; in.RefundPolicy = &p },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			in := validThresholdInput()
			mutate(&in)
			if err := in.Validate(validationNow); err != nil {
				t.Fatalf("want valid, got %v", err)
			}
		})
	}
}

func TestValidateReportsEachBrokenRule(t *testing.T) {
	cases := []struct {
		name   string
		field  string
		mutate func(*CreateInput)
	}{
		{"empty name", "name", func(in *CreateInput) { in.Name = "  " }},
		{"long name", "name", func(in *CreateInput) { in.Name = strings.Repeat("x", 65) }},
		{"end before start", "validEndTime", func(in *CreateInput) { in.ValidEndTime = in.ValidStartTime.Add(-time.Second) }},
		{"end equals start", "validEndTime", func(in *CreateInput) { in.ValidEndTime = in.ValidStartTime }},
		{"end already past", "validEndTime", func(in *CreateInput) {
			in.ValidStartTime, in.ValidEndTime = validationNow.Add(-2*time.Hour), validationNow.Add(-time.Hour)
		}},
		{"stock zero", "stock", func(in *CreateInput) { in.Stock = 0; in.LimitPerPerson = 1 }},
		{"stock negative", "stock", func(in *CreateInput) { in.Stock = -5; in.LimitPerPerson = 1 }},
		{"stock too large", "stock", func(in *CreateInput) { in.Stock = 10_000_001 }},
		{"limit zero", "limitPerPerson", func(in *CreateInput) { in.LimitPerPerson = 0 }},
		{"limit above stock", "limitPerPerson", func(in *CreateInput) { in.Stock = 5; in.LimitPerPerson = 6 }},
		{"unknown source", "source", func(in *CreateInput) { in.Source = "MARS" }},
		{"unknown type", "type", func(in *CreateInput) { in.Type = "FREE" }},
		{"unknown target", "target", func(in *CreateInput) { in.Target = "ALL" }},
		{"product without goods", "goods", func(in *CreateInput) { in.Target = coupontemplate.TargetPRODUCT }},
		{"product with blank goods", "goods", func(in *CreateInput) { in.Target = coupontemplate.TargetPRODUCT; in.Goods = str(" ") }},
		{"shop-wide with goods", "goods", func(in *CreateInput) { in.Goods = str("sku-1") }},
		{"threshold missing", "thresholdAmount", func(in *CreateInput) { in.ThresholdAmount = nil }},
		{"threshold zero", "thresholdAmount", func(in *CreateInput) { in.ThresholdAmount = dec("0") }},
		{"discount equals threshold", "discountAmount", func(in *CreateInput) { in.ThresholdAmount = dec("20"); in.DiscountAmount = dec("20.00") }},
		{"discount above threshold", "discountAmount", func(in *CreateInput) { in.DiscountAmount = dec("250") }},
		{"discount missing", "discountAmount", func(in *CreateInput) { in.DiscountAmount = nil }},
		{"discount 3 decimals", "discountAmount", func(in *CreateInput) { in.DiscountAmount = dec("1.005") }},
		{"discount too large", "discountAmount", func(in *CreateInput) {
			in.ThresholdAmount, in.DiscountAmount = dec("99999999999"), dec("10000000000")
		}},
		{"threshold off with rate", "discountRate", func(in *CreateInput) { in.DiscountRate = dec("0.5") }},
		{"fixed off without amount", "discountAmount", func(in *CreateInput) {
			in.Type, in.ThresholdAmount, in.DiscountAmount = coupontemplate.TypeFIXED_OFF, nil, nil
		}},
		{"fixed off negative amount", "discountAmount", func(in *CreateInput) {
			in.Type, in.ThresholdAmount, in.DiscountAmount = coupontemplate.TypeFIXED_OFF, nil, dec("-3")
		}},
		{"percent off without rate", "discountRate", func(in *CreateInput) {
			in.Type, in.DiscountAmount = coupontemplate.TypePERCENT_OFF, nil
		}},
		{"percent off rate 1", "discountRate", func(in *CreateInput) {
			in.Type, in.DiscountAmount, in.DiscountRate = coupontemplate.TypePERCENT_OFF, nil, dec("1")
		}},
		{"percent off rate 0", "discountRate", func(in *CreateInput) {
			in.Type, in.DiscountAmount, in.DiscountRate = coupontemplate.TypePERCENT_OFF, nil, dec("0")
		}},
		{"percent off rate above 1", "discountRate", func(in *CreateInput) {
			in.Type, in.DiscountAmount, in.DiscountRate = coupontemplate.TypePERCENT_OFF, nil, dec("1.5")
		}},
		{"percent off with amount", "discountAmount", func(in *CreateInput) {
			in.Type, in.DiscountRate = coupontemplate.TypePERCENT_OFF, dec("0.9")
		}},
		{"percent off cap zero", "maxDiscountAmount", func(in *CreateInput) {
			in.Type, in.DiscountAmount, in.DiscountRate, in.MaxDiscountAmount = coupontemplate.TypePERCENT_OFF, nil, dec("0.9"), dec("0")
		}},
		{"validity zero hours", "validityHours", func(in *CreateInput) { in.ValidityHours = num(0) }},
		{"validity too long", "validityHours", func(in *CreateInput) { in.ValidityHours = num(MaxValidityHours + 1) }},
		{"unknown refund policy", "refundPolicy", func(in *CreateInput) { p := coupontemplate.RefundPolicy("KEEP"); in.RefundPolicy = &p }},
		{"long instructions", "usageInstructions", func(in *CreateInput) { in.UsageInstructions = str(strings.Repeat("a", 501)) }},
		{"zero stock shards", "stockShards", func(in *CreateInput) { in.StockShards = num(0) }},
		{"too many stock shards", "stockShards", func(in *CreateInput) { in.StockShards = num(MaxStockShards + 1) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := validThresholdInput()
			c.mutate(&in)
			errs := coupon.AsErrors(in.Validate(validationNow))
			if len(errs) == 0 {
				t.Fatal("want a validation error, got none")
			}
			for _, e := range errs {
				if e.Code != coupon.CodeInvalidInput {
					t.Errorf("code %s, want INVALID_INPUT", e.Code)
				}
				if slices.Equal(e.Field, []string{c.field}) {
					return
				}
			}
			t.Fatalf("no error on field %q: %v", c.field, errs)
		})
	}
}

func TestValidateListsEveryBrokenRuleAtOnce(t *testing.T) {
	in := validThresholdInput()
	in.Name, in.Stock, in.DiscountAmount = "", 0, nil
	errs := coupon.AsErrors(in.Validate(validationNow))
	var fields []string
	for _, e := range errs {
		fields = append(fields, e.Field[0])
	}
	for _, want := range []string{"name", "stock", "discountAmount"} {
		if !slices.Contains(fields, want) {
			t.Errorf("missing error on %s; got %v", want, fields)
		}
	}
}
