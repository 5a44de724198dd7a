package graph

import (
	"context"
	"slices"

	"coupond/auth"
	"coupond/coupon"

	"github.com/99designs/gqlgen/graphql"
)

// HasRole implements @hasRole: no (or a bad) token gives UNAUTHENTICATED, a role not listed FORBIDDEN.
func HasRole(ctx context.Context, _ any, next graphql.Resolver, roles []coupon.Role) (any, error) {
	actor, ok, err := auth.FromContext(ctx)
	if err != nil || !ok {
		return nil, errUnauthenticated
	}
	if !slices.Contains(roles, actor.Role) {
		return nil, errForbidden
	}
	return next(ctx)
}

// actorOf returns the caller of a field guarded by @hasRole (the directive ran first).
func actorOf(ctx context.Context) coupon.Actor {
	a, _, _ := auth.FromContext(ctx)
	return a
}

// optionalActor returns the caller of a field open to anonymous callers (nil when anonymous);
// a bad token is UNAUTHENTICATED rather than silently anonymous.
func optionalActor(ctx context.Context) (*coupon.Actor, error) {
	a, ok, err := auth.FromContext(ctx)
	if err != nil {
		return nil, errUnauthenticated
	}
	if !ok {
		return nil, nil
	}
	return &a, nil
}
