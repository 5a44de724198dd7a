package coupon

import (
	"errors"
	"fmt"
)

// Code classifies an Error: one of the API's ErrorCode values. graph/ reports most as userErrors
// and adds the codes that exist only as top-level GraphQL errors (UNAUTHENTICATED, FORBIDDEN, …).
type Code string

// Codes of the API's ErrorCode enum (business outcomes).
const (
	CodeInvalidInput    Code = "INVALID_INPUT"
	CodeNotFound        Code = "NOT_FOUND"
	CodeOutOfStock      Code = "OUT_OF_STOCK"
	CodeLimitReached    Code = "LIMIT_REACHED"
	CodeNotStarted      Code = "NOT_STARTED"
	CodeEnded           Code = "ENDED"
	CodeRateLimited     Code = "RATE_LIMITED"
	CodeNotOwner        Code = "NOT_OWNER"
	CodeAlreadyLocked   Code = "ALREADY_LOCKED"
	CodeNotApplicable   Code = "NOT_APPLICABLE"
	CodeThresholdNotMet Code = "THRESHOLD_NOT_MET"
	CodeExpired         Code = "EXPIRED"
	CodeInvalidState    Code = "INVALID_STATE"
	CodeFileInvalid     Code = "FILE_INVALID"
	CodeAmountMismatch  Code = "AMOUNT_MISMATCH"
	CodeUnconfirmed     Code = "UNCONFIRMED"
)

// Error is a typed failure the caller can act on. Field names the input field at fault, as a path
// relative to the operation's input (["stock"], ["items", "0", "goods"]), when there is one.
type Error struct {
	Code    Code
	Field   []string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldError returns an INVALID_INPUT *Error about one input field.
func FieldError(field string, message string) *Error {
	return &Error{Code: CodeInvalidInput, Field: []string{field}, Message: message}
}

// ValidationError collects every broken rule of one input, so the client sees them all at once.
type ValidationError []*Error

func (v ValidationError) Error() string {
	if len(v) == 0 {
		return "validation failed"
	}
	return fmt.Sprintf("%d invalid field(s), first: %s", len(v), v[0].Error())
}

// The refusals that read the same whatever refused: each code's one wording.
var (
	// ErrNotFound is returned for ids that do not exist or that the caller may not see.
	ErrNotFound = &Error{Code: CodeNotFound, Message: "not found"}
	// ErrRateLimited is returned for a request over a rate or concurrency limit.
	ErrRateLimited = &Error{Code: CodeRateLimited, Message: "too many at once: try again in a moment"}
	// ErrUnconfirmed is returned for a claim Redis accepted that its replicas did not acknowledge in
	// time (COUPON_REDIS_WAIT_REPLICAS): retried with the same requestId, it answers the claim.
	ErrUnconfirmed = &Error{Code: CodeUnconfirmed, Message: "the claim is not confirmed yet: retry with the same requestId"}
)

// NotFoundAt is ErrNotFound naming the input field whose id was not found.
func NotFoundAt(field string) *Error {
	return &Error{Code: CodeNotFound, Field: []string{field}, Message: ErrNotFound.Message}
}

// AsErrors returns the typed errors inside err (several for a ValidationError), or nil when err
// is not a typed error (an internal failure).
func AsErrors(err error) []*Error {
	var v ValidationError
	if errors.As(err, &v) {
		return v
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return nil
}
