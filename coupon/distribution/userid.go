package distribution

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Failure codes of rows (coupon_task_failure.code).
const (
	CodeOutOfStock      = "OUT_OF_STOCK"
	CodeLimitReached    = "LIMIT_REACHED"
	CodeDuplicateInFile = "DUPLICATE_IN_FILE"
	CodeInvalidUserID   = "INVALID_USER_ID"
	CodeTemplateEnded   = "TEMPLATE_ENDED"
)

// maxExactFloat is the largest integer below which every integer is a double (2^53): a number
// cell above it cannot hold an id exactly.
const maxExactFloat = 1 << 53

// Row is one data row of a file.
type Row struct {
	Num    int    // the row number as the spreadsheet shows it (1-based; for CSV, the line number)
	Raw    string // the id cell as written (for failures and the report)
	UserID int64  // the id, when Code is ""
	Code   string // "" or CodeInvalidUserID
	Reason string // why the id is not valid
}

// parseUserID reads an id cell's raw value (excelize's raw cell value, or a CSV field). Digits
// (surrounding spaces allowed) are the id itself, up to the largest 64-bit integer. A value
// written as a decimal or in exponent notation is what spreadsheets write for number cells
// ("12345.0", "1.23456789012346E+018"): a whole number up to 2^53 is that id; above 2^53 a number
// cell has already rounded the id, so the row is refused, never issued to a rounded id.
func parseUserID(raw string) (int64, string) {
	s := strings.TrimFunc(raw, unicode.IsSpace)
	switch {
	case s == "":
		return 0, "the user id cell is empty"
	case isDigits(s):
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, "the user id is larger than any id (above 9223372036854775807)"
		}
		if id == 0 {
			return 0, "user ids are positive: 0 is not one"
		}
		return id, ""
	case isNumberLiteral(s):
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil && !math.IsInf(f, 0):
			return 0, "the user id is not a number"
		case f <= 0:
			return 0, "user ids are positive whole numbers"
		case f != math.Trunc(f):
			return 0, "the user id is not a whole number"
		case f > maxExactFloat:
			return 0, "the id is stored as a number, which spreadsheets round above 9007199254740992: format the column as text and enter the ids again"
		}
		return int64(f), ""
	}
	return 0, "the user id is not a number"
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isNumberLiteral reports whether s looks like a decimal number ([+-]digits[.digits][E[+-]digits]),
// so ParseFloat never sees its other spellings (inf, nan, hex, underscores).
func isNumberLiteral(s string) bool {
	digits := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-':
		default:
			return false
		}
	}
	return digits
}

// asWritten is raw made fit for storage and display: valid UTF-8, spaces at the ends removed,
// at most 64 characters.
func asWritten(raw string) string {
	s := strings.TrimFunc(strings.ToValidUTF8(raw, "\uFFFD"), unicode.IsSpace)
	if utf8.RuneCountInString(s) > 64 {
		s = string([]rune(s)[:63]) + "…"
	}
	return s
}
