package graph

import (
	"bytes"
	"context"
	"errors"

	"coupond/coupon"
	"coupond/graph/model"
	"coupond/graph/scalar"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// quotePlan is one compiled applicableCoupons query. The executor marshals each of a wallet's
// hundreds of quotes in a goroutine of its own (gqlgen marshals every list of objects so); a plan
// writes them one after the other into one buffer.
type quotePlan struct {
	field    graphql.CollectedField // the applicableCoupons field (its alias is the response name)
	selected []planField            // the CouponQuote selection, in order
}

// compileQuotePlan returns the plan of doc, or nil when doc is not one a plan answers exactly: one
// query whose only root field is applicableCoupons, its quote selection made of planLeaves fields
// with distinct response names, and no fragments or directives anywhere.
func compileQuotePlan(doc *ast.QueryDocument) *quotePlan {
	root := onlyRootField(doc, ast.Query, "applicableCoupons")
	if root == nil {
		return nil
	}
	selected, ok := compileSelection(root.SelectionSet, "CouponQuote")
	if !ok {
		return nil
	}
	return &quotePlan{field: graphql.CollectedField{Field: root, Selections: root.SelectionSet}, selected: selected}
}

// run answers the query as the executor does (see claimPlan.run), or returns false before anything
// ran when its order does not unmarshal as the executor's would.
func (p *quotePlan) run(ctx context.Context, oc *graphql.OperationContext, plans *claimPlans) (*graphql.Response, bool) {
	order, ok := p.input(oc.Variables)
	if !ok {
		return nil, false
	}
	ctx = graphql.WithRootFieldContext(ctx, &graphql.RootFieldContext{Object: p.field.Name, Field: p.field})
	var quotes []*model.CouponQuote
	var errs gqlerror.List
	oc.RootResolverMiddleware(ctx, func(ctx context.Context) graphql.Marshaler {
		var out any
		out, errs = resolveRoot(ctx, oc, plans, "Query", p.field, plans.quoteRoles, func(ctx context.Context) (any, error) {
			return plans.resolver.Query().ApplicableCoupons(ctx, order)
		}, checkQuotes)
		quotes, _ = out.([]*model.CouponQuote)
		return graphql.Null
	})
	if errs != nil {
		return &graphql.Response{Errors: errs, Data: []byte("null")}, true
	}
	b := bytes.NewBuffer(make([]byte, 0, 64+96*len(quotes)))
	b.WriteByte('{')
	graphql.MarshalString(p.field.Alias).MarshalGQL(b)
	b.WriteString(":[")
	for i, q := range quotes {
		if i > 0 {
			b.WriteByte(',')
		}
		writeQuoteObject(b, p.selected, q, nil)
	}
	b.WriteString("]}")
	return &graphql.Response{Data: b.Bytes()}, true
}

// errNullQuote is what the resolver never answers: no list, or a quote or coupon that is null.
var errNullQuote = errors.New("applicableCoupons answered a null quote")

// checkQuotes refuses an answer the executor could not write as [CouponQuote!]! with non-null
// coupons.
func checkQuotes(out any) error {
	quotes, _ := out.([]*model.CouponQuote)
	if quotes == nil {
		return errNullQuote
	}
	for _, q := range quotes {
		if q == nil || q.Coupon == nil || q.Coupon.UserCoupon == nil {
			return errNullQuote
		}
	}
	return nil
}

// input is the order argument as the generated code unmarshals it from gqlgen's coerced
// variables (ArgumentMap): orderId with graphql.UnmarshalID, shopNumber with
// graphql.UnmarshalString where it is not null, amount with scalar.UnmarshalDecimal, items (null,
// or a list or one item) likewise; false when any of them does not unmarshal.
func (p *quotePlan) input(vars map[string]any) (model.OrderInput, bool) {
	var in model.OrderInput
	obj, ok := p.field.ArgumentMap(vars)["order"].(map[string]any)
	if !ok {
		return in, false
	}
	var err, e error
	in.OrderID, err = graphql.UnmarshalID(obj["orderId"])
	in.ShopNumber, e = optionalString(obj["shopNumber"])
	err = errors.Join(err, e)
	in.Amount, e = scalar.UnmarshalDecimal(obj["amount"])
	err = errors.Join(err, e)
	if items := obj["items"]; items != nil {
		for _, v := range graphql.CoerceList(items) {
			it, ok := v.(map[string]any)
			if !ok {
				return in, false
			}
			item := &model.OrderItemInput{}
			item.Goods, e = graphql.UnmarshalString(it["goods"])
			err = errors.Join(err, e)
			item.Amount, e = scalar.UnmarshalDecimal(it["amount"])
			err = errors.Join(err, e)
			item.ShopNumber, e = optionalString(it["shopNumber"])
			err = errors.Join(err, e)
			in.Items = append(in.Items, item)
		}
	}
	return in, err == nil
}

// optionalString unmarshals a nullable String as the generated code does.
func optionalString(v any) (*string, error) {
	if v == nil {
		return nil, nil
	}
	s, err := graphql.UnmarshalString(v)
	return &s, err
}

// writeQuoteObject writes the selected fields of one object of the answer: a quote, or a quote's
// coupon (the other nil), each leaf with the marshaler the generated code uses.
func writeQuoteObject(b *bytes.Buffer, fields []planField, q *model.CouponQuote, uc *coupon.UserCoupon) {
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		graphql.MarshalString(f.key).MarshalGQL(b)
		b.WriteByte(':')
		switch f.leaf {
		case leafTypename:
			graphql.MarshalString(f.typename).MarshalGQL(b)
		case leafCoupon:
			writeQuoteObject(b, f.children, nil, q.Coupon)
		case leafApplicable:
			graphql.MarshalBoolean(q.Applicable).MarshalGQL(b)
		case leafDiscount:
			scalar.MarshalDecimal(q.Discount).MarshalGQL(b)
		case leafQuoteCode:
			if q.Code == nil {
				b.WriteString("null")
			} else {
				graphql.MarshalString(string(*q.Code)).MarshalGQL(b)
			}
		case leafReason:
			writeOptionalString(b, q.Reason)
		case leafCouponID:
			scalar.MarshalID(uc.ID).MarshalGQL(b)
		case leafCouponStatus:
			graphql.MarshalString(string(uc.Status())).MarshalGQL(b)
		case leafValidStart:
			scalar.MarshalTime(uc.ValidStartTime).MarshalGQL(b)
		case leafValidEnd:
			scalar.MarshalTime(uc.ValidEndTime).MarshalGQL(b)
		}
	}
	b.WriteByte('}')
}
