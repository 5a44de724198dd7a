package graph

import (
	"coupond/coupon"
	"coupond/graph/model"
)

// couponConnection builds the Relay connection of a page of user coupons.
func couponConnection(p coupon.Page[*coupon.UserCoupon], req pageRequest) *model.UserCouponConnection {
	edges, info := page(p.Items, p.HasMore, req, func(uc *coupon.UserCoupon) int64 { return uc.ID },
		func(cursor string, uc *coupon.UserCoupon) *model.UserCouponEdge {
			return &model.UserCouponEdge{Cursor: cursor, Node: uc}
		})
	return &model.UserCouponConnection{Edges: edges, PageInfo: info, TotalCount: p.Total}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
