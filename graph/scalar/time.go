package scalar

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// The range of Time inputs: what a DATETIME(3) column stores (up to 9999-12-31), without the
// pre-epoch years nobody schedules a coupon in (Redis scores and task times are Unix
// milliseconds). A time outside it is BAD_USER_INPUT before any resolver runs.
var (
	MinTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC)
)

// maxTimeLen bounds a Time input before it is parsed ("2026-01-01T00:00:00.123456789+05:30" is 35).
const maxTimeLen = 64

// MarshalTime writes t as RFC 3339 (nanoseconds when present) and never fails or writes null:
// a stored value out of the input range (a zero "0000-00-00" row read back as year 1, say) is
// written as it is, so one bad row cannot null a non-null field and with it a whole page.
func MarshalTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		io.WriteString(w, strconv.Quote(t.Format(time.RFC3339Nano)))
	})
}

// UnmarshalTime accepts an RFC 3339 string with a zone ("2026-01-01T00:00:00Z",
// "2026-01-01T08:00:00+08:00") inside MinTime…MaxTime; anything else is an InputError.
func UnmarshalTime(v any) (time.Time, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number, int, int64, float64:
		return time.Time{}, &InputError{fmt.Sprintf("Time must be an RFC 3339 string like \"2026-01-01T00:00:00Z\", got the number %v", x)}
	default:
		return time.Time{}, &InputError{fmt.Sprintf("Time must be an RFC 3339 string like \"2026-01-01T00:00:00Z\", got %T", v)}
	}
	if len(s) > maxTimeLen {
		return time.Time{}, &InputError{fmt.Sprintf("Time must be an RFC 3339 string of at most %d characters", maxTimeLen)}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, &InputError{fmt.Sprintf("%q is not an RFC 3339 time with a zone, like \"2026-01-01T00:00:00Z\"", s)}
	}
	if t.Before(MinTime) || t.After(MaxTime) {
		return time.Time{}, &InputError{fmt.Sprintf("%q is outside the supported range %s … %s",
			s, MinTime.Format(time.RFC3339), MaxTime.Format(time.RFC3339Nano))}
	}
	return t, nil
}
