// Package scalar implements the GraphQL scalars ID (64-bit ids as decimal strings) and Decimal
// (money as a string with 2 decimals).
package scalar

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/shopspring/decimal"
)

// InputError is a malformed scalar in a request; the error presenter reports it as BAD_USER_INPUT.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

// MarshalID writes a 64-bit id as a decimal string.
func MarshalID(id int64) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		var buf [22]byte // the quotes and the longest int64
		b := append(strconv.AppendInt(append(buf[:0], '"'), id, 10), '"')
		w.Write(b)
	})
}

// ParseID parses an ID argument holding a positive 64-bit id; a malformed one is BAD_USER_INPUT.
func ParseID(s string) (int64, error) { return UnmarshalID(s) }

// UnmarshalID accepts a decimal string (or a JSON integer) holding a positive 64-bit id.
func UnmarshalID(v any) (int64, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	case int64:
		s = strconv.FormatInt(x, 10)
	case int:
		s = strconv.Itoa(x)
	default:
		return 0, &InputError{fmt.Sprintf("ID must be a decimal string, got %T", v)}
	}
	if len(s) > 20 { // the longest int64
		return 0, &InputError{fmt.Sprintf("ID must be a positive 64-bit integer, got %d characters", len(s))}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, &InputError{fmt.Sprintf("ID %q is not a positive 64-bit integer", s)}
	}
	return id, nil
}

// MarshalDecimal writes money with exactly 2 decimals ("12.50").
func MarshalDecimal(d decimal.Decimal) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		var buf [24]byte // the quotes and 18 digits, sign and point
		b, ok := appendCents(append(buf[:0], '"'), d)
		if !ok {
			b = append(b, d.StringFixed(2)...) // digits, sign and point: nothing to escape
		}
		w.Write(append(b, '"'))
	})
}

// appendCents appends d as d.StringFixed(2) writes it when d has at most 2 decimals and 15 digits
// (its cents fit in an int64, no rounding), without StringFixed's big.Int arithmetic; false (b
// unchanged) otherwise.
func appendCents(b []byte, d decimal.Decimal) ([]byte, bool) {
	e := d.Exponent()
	if e < -2 || e > 0 || d.NumDigits() > 15 {
		return b, false
	}
	c := d.CoefficientInt64()
	for ; e > -2; e-- {
		c *= 10
	}
	if c < 0 {
		b, c = append(b, '-'), -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	return append(b, '.', byte('0'+c%100/10), byte('0'+c%10)), true
}

// maxDecimalLen bounds a Decimal input before it is parsed: parsing is superlinear in the number
// of digits and runs before authorization (once per alias), and money columns hold 12 digits.
const maxDecimalLen = 32

// UnmarshalDecimal accepts a decimal string ("12.5", "12.50") or a JSON number of at most
// maxDecimalLen characters.
func UnmarshalDecimal(v any) (decimal.Decimal, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	case int64:
		return decimal.NewFromInt(x), nil
	case int:
		return decimal.NewFromInt(int64(x)), nil
	case float64:
		return decimal.NewFromFloat(x), nil
	default:
		return decimal.Decimal{}, &InputError{fmt.Sprintf("Decimal must be a string like \"12.50\", got %T", v)}
	}
	if len(s) > maxDecimalLen {
		return decimal.Decimal{}, &InputError{fmt.Sprintf("Decimal must be at most %d characters long, got %d", maxDecimalLen, len(s))}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, &InputError{fmt.Sprintf("%q is not a decimal number", s)}
	}
	return d, nil
}
