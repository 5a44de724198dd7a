package graph

import (
	"coupond/coupon"
	"coupond/graph/model"
)

// couponConnection builds the Relay connection of a page of user coupons.
func couponConnection(p *coupon.CouponPage) *model.UserCouponConnection {
	c := &model.UserCouponConnection{Edges: []*model.UserCouponEdge{}, PageInfo: &model.PageInfo{HasNextPage: p.HasNext}, TotalCount: p.Total}
	for _, uc := range p.Coupons {
		c.Edges = append(c.Edges, &model.UserCouponEdge{Cursor: encodeCursor(uc.ID), Node: uc})
	}
	if n := len(c.Edges); n > 0 {
		c.PageInfo.EndCursor = &c.Edges[n-1].Cursor
	}
	return c
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
