package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"coupond/coupon"
	"coupond/graph/scalar"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Codes that only appear as top-level GraphQL errors (extensions.code), never as userErrors.
const (
	CodeUnauthenticated coupon.Code = "UNAUTHENTICATED"
	CodeForbidden       coupon.Code = "FORBIDDEN"
	CodeBadUserInput    coupon.Code = "BAD_USER_INPUT"
	CodeInternal        coupon.Code = "INTERNAL"
	codeComplexity                  = "COMPLEXITY_LIMIT_EXCEEDED"
)

// The boundary's refusals, each code's one wording (the directive, uploads, failure reports and
// websockets all use these).
var (
	errUnauthenticated = &coupon.Error{Code: CodeUnauthenticated, Message: "sign in: send a valid token as Authorization: Bearer <token>"}
	errForbidden       = &coupon.Error{Code: CodeForbidden, Message: "your role may not do this"}
)

// payload splits a domain error into the userErrors of a mutation payload (business outcomes,
// their field paths put under the mutation's "input" argument) and a top-level error (anything
// else: the presenter maps it).
func payload(err error) ([]*coupon.Error, error) {
	if err == nil {
		return []*coupon.Error{}, nil
	}
	errs := coupon.AsErrors(err)
	if errs == nil || !isBusiness(errs[0].Code) {
		return nil, err
	}
	out := make([]*coupon.Error, len(errs))
	for i, e := range errs {
		c := *e
		if len(e.Field) > 0 {
			c.Field = append([]string{"input"}, e.Field...)
		}
		out[i] = &c
	}
	return out, nil
}

// isBusiness reports whether code is one of the API's ErrorCode values (reported as userErrors).
func isBusiness(code coupon.Code) bool {
	switch code {
	case CodeUnauthenticated, CodeForbidden, CodeBadUserInput, CodeInternal:
		return false
	}
	return true
}

// topLevelCode maps a typed error's code to the extensions.code of a top-level GraphQL error
// (NOT_OWNER, another shop's data asked for by a query, is FORBIDDEN).
func topLevelCode(code coupon.Code) coupon.Code {
	switch code {
	case CodeUnauthenticated, CodeForbidden, coupon.CodeNotFound, coupon.CodeRateLimited, CodeInternal:
		return code
	case coupon.CodeNotOwner:
		return CodeForbidden
	}
	return CodeBadUserInput
}

// ErrorPresenter is the one place errors become GraphQL errors, and every error leaves it with
// an extensions.code: typed domain errors keep their code, malformed scalars (scalar.InputError)
// are BAD_USER_INPUT, gqlgen's own coded errors (parse, validation, complexity, persisted
// queries) pass unchanged, an uncoded error without a path is a mistake in the request itself
// (gqlgen's transports make those) and is BAD_USER_INPUT with its message cut short, and
// everything else is logged and shown as INTERNAL with no detail (no SQL text or stack trace
// reaches a client). Client mistakes are logged at INFO, shortened, never with the request body.
func ErrorPresenter(ctx context.Context, err error) *gqlerror.Error {
	gqlErr := graphql.DefaultErrorPresenter(ctx, err)
	if _, ok := gqlErr.Extensions["code"]; ok && gqlErr.Err == nil {
		return gqlErr // parse/validation/complexity errors made by gqlgen itself
	}
	var inputErr *scalar.InputError
	if errs := coupon.AsErrors(err); errs != nil {
		gqlErr.Message = errs[0].Message
		setCode(gqlErr, topLevelCode(errs[0].Code))
		return gqlErr
	}
	if errors.As(err, &inputErr) {
		gqlErr.Message = inputErr.Error()
		setCode(gqlErr, CodeBadUserInput)
		return gqlErr
	}
	if _, ok := gqlErr.Extensions["code"]; ok {
		return gqlErr
	}
	if gqlErr.Err == nil && len(gqlErr.Path) == 0 {
		gqlErr.Message = truncate(gqlErr.Message, maxClientMessage)
		slog.InfoContext(ctx, "bad request", "err", gqlErr.Message)
		setCode(gqlErr, CodeBadUserInput)
		return gqlErr
	}
	slog.ErrorContext(ctx, "request failed", "path", gqlErr.Path.String(), "err", truncate(err.Error(), maxLoggedError))
	gqlErr.Message = "internal error"
	setCode(gqlErr, CodeInternal)
	return gqlErr
}

// Lengths of a client mistake's message and of a logged error.
const (
	maxClientMessage = 200
	maxLoggedError   = 1000
)

func setCode(e *gqlerror.Error, code coupon.Code) {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = string(code)
}

// Recover turns a panic in a resolver into an INTERNAL error, logging the stack server-side.
func Recover(ctx context.Context, p any) error {
	slog.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	return &coupon.Error{Code: CodeInternal, Message: "internal error"}
}
