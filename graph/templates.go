package graph

import (
	"context"
	"strconv"

	"coupond/coupon"
	"coupond/coupon/template"
	"coupond/ent/coupontemplate"
	"coupond/graph/model"
	"coupond/graph/scalar"
)

// templatePayload builds a CouponTemplatePayload from a domain result.
func templatePayload(t *coupon.Template, err error) (*model.CouponTemplatePayload, error) {
	userErrors, err := payload(err)
	if err != nil {
		return nil, err
	}
	if len(userErrors) > 0 {
		t = nil
	}
	return &model.CouponTemplatePayload{Template: t, UserErrors: userErrors}, nil
}

// templateFilter converts the GraphQL filter.
func templateFilter(in *model.CouponTemplateFilter) (template.Filter, error) {
	if in == nil {
		return template.Filter{}, nil
	}
	f := template.Filter{Status: in.Status, Type: in.Type, Source: in.Source, NameContains: in.NameContains}
	if in.ShopNumber != nil {
		shop, err := strconv.ParseInt(*in.ShopNumber, 10, 64)
		if err != nil {
			return f, &coupon.Error{Code: CodeBadUserInput, Field: []string{"filter", "shopNumber"}, Message: "shopNumber must be a number"}
		}
		f.ShopNumber = &shop
	}
	return f, nil
}

// templateShop is CouponTemplate.shopNumber: null for a PLATFORM-source template, which belongs
// to no shop (whatever its row carries).
func templateShop(t *coupon.Template) *string {
	if t.Source != coupontemplate.SourceSHOP {
		return nil
	}
	s := strconv.FormatInt(t.ShopNumber, 10)
	return &s
}

// templateConnection builds the Relay connection of a page.
func templateConnection(p coupon.Page[*coupon.Template], req pageRequest) *model.CouponTemplateConnection {
	edges, info := page(p.Items, p.HasMore, req, func(t *coupon.Template) int64 { return t.ID },
		func(cursor string, t *coupon.Template) *model.CouponTemplateEdge {
			return &model.CouponTemplateEdge{Cursor: cursor, Node: t}
		})
	return &model.CouponTemplateConnection{Edges: edges, PageInfo: info, TotalCount: p.Total}
}

// templateLog reads one page of a template's audit trail, newest first (cursors are entry ids).
func (r *Resolver) templateLog(ctx context.Context, templateID string, first *int, after *string) (*model.TemplateLogConnection, error) {
	tid, err := scalar.ParseID(templateID)
	if err != nil {
		return nil, err
	}
	req, err := pageArgs(first, after, nil, nil)
	if err != nil {
		return nil, err
	}
	p, err := r.Templates.Log(ctx, actorOf(ctx), tid, req.keyset())
	if err != nil {
		return nil, err
	}
	edges, info := page(p.Items, p.HasMore, req, func(e template.LogEntry) int64 { return e.ID },
		func(cursor string, e template.LogEntry) *model.TemplateLogEdge {
			return &model.TemplateLogEdge{Cursor: cursor, Node: &e}
		})
	return &model.TemplateLogConnection{Edges: edges, PageInfo: info, TotalCount: p.Total}, nil
}
