package scalar

import (
	"bytes"
	"math"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"
)

// TestMarshalAsQuote: IDs and Decimals are written as strconv.Quote writes their strings.
func TestMarshalAsQuote(t *testing.T) {
	for _, id := range []int64{1, 42, 1234567890123456789, math.MaxInt64, math.MinInt64} {
		var got bytes.Buffer
		MarshalID(id).MarshalGQL(&got)
		if want := strconv.Quote(strconv.FormatInt(id, 10)); got.String() != want {
			t.Errorf("MarshalID(%d) = %s, want %s", id, got.String(), want)
		}
	}
	for _, s := range []string{"0", "5", "5.00", "12.5", "0.05", "-0.5", "-0.05", "-3.456", "1.005", "99999999999.99", "999999999999999",
		"9999999999999999", "5e1", "-12e-1", "123456789012345678901234567890.12"} {
		d := decimal.RequireFromString(s)
		var got bytes.Buffer
		MarshalDecimal(d).MarshalGQL(&got)
		if want := strconv.Quote(d.StringFixed(2)); got.String() != want {
			t.Errorf("MarshalDecimal(%s) = %s, want %s", s, got.String(), want)
		}
	}
}
