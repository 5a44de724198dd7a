package graph

import (
	"context"
	"errors"
	"strings"

	"coupond/coupon"
	"coupond/graph/model"
	"coupond/graph/scalar"
)

// node resolves node(id) with the API's own ids, told apart by their form: "<templateId>-<n>" is
// a redemption (the caller's own, USER callers only); a decimal id is a template (visible as
// couponTemplate shows it) or else one of a USER caller's coupons, or a distribution task a
// MERCHANT (its shop's) or PLATFORM caller may read. Template, coupon and task ids come from one
// snowflake generator, so an id names at most one of them. Anything the caller may not
// see, or that does not exist, is null; a malformed id is BAD_USER_INPUT.
func (r *queryResolver) node(ctx context.Context, id string) (model.Node, error) {
	actor, err := optionalActor(ctx)
	if err != nil {
		return nil, err
	}
	isUser := actor != nil && actor.Role == coupon.RoleUser
	if strings.Contains(id, "-") {
		if !isUser {
			return nil, nil
		}
		return found(r.Redeemer.Redemption(ctx, actor.UserID, id))
	}
	n, err := scalar.ParseID(id)
	if err != nil {
		return nil, err
	}
	if t, err := found(r.Templates.Get(ctx, actor, n)); t != nil || err != nil {
		return t, err
	}
	switch {
	case isUser:
		return r.ownCoupon(ctx, actor.UserID, n)
	case actor != nil && (actor.Role == coupon.RoleMerchant || actor.Role == coupon.RolePlatform):
		return found(r.Distribution.Get(ctx, *actor, n))
	}
	return nil, nil
}

// ownCoupon returns the user's coupon with this id, or nil.
func (r *queryResolver) ownCoupon(ctx context.Context, userID, id int64) (model.Node, error) {
	return found(r.Wallet.Coupon(ctx, userID, id))
}

// found turns a domain lookup into node's answer: ErrNotFound (or no value) is a nil Node.
func found[T any](v *T, err error) (model.Node, error) {
	if errors.Is(err, coupon.ErrNotFound) || (err == nil && v == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}
