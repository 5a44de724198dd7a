package graph

import (
	"bytes"
	"context"
	"errors"

	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/graph/model"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// match returns the learned plan of params and the input it gives, or false when the executor
// must answer: no plan for this document text, extensions (persisted queries), another operation
// name, or variables the plan does not take as they are (anything but strings where strings go,
// nulls where they may be null, and no unknown input fields): the executor then checks and
// refuses them with its own messages.
func (p *claimPlans) match(params *graphql.RawParams) (*claimPlan, model.RedeemCouponInput, bool) {
	if p == nil || params.Query == "" || len(params.Extensions) != 0 {
		return nil, model.RedeemCouponInput{}, false
	}
	plan, ok := p.known.Get(params.Query)
	if !ok || plan == nil || (params.OperationName != "" && params.OperationName != plan.opName) {
		return nil, model.RedeemCouponInput{}, false
	}
	in, ok := plan.inputOf(params.Variables)
	return plan, in, ok
}

// inputOf is the input the variables give, as the executor would coerce it.
func (p *claimPlan) inputOf(vars map[string]any) (model.RedeemCouponInput, bool) {
	var in model.RedeemCouponInput
	if p.input.whole != "" {
		obj, ok := vars[p.input.whole].(map[string]any)
		if !ok {
			return in, false
		}
		for k := range obj {
			if k != "templateId" && k != "requestId" {
				return in, false
			}
		}
		t, ok := obj["templateId"].(string)
		if !ok {
			return in, false
		}
		in.TemplateID = t
		switch r := obj["requestId"].(type) {
		case nil:
		case string:
			in.RequestID = &r
		default:
			return in, false
		}
		return in, true
	}
	t, ok := p.value(p.input.templateID, vars)
	if !ok || t == nil {
		return in, false
	}
	in.TemplateID = *t
	in.RequestID, ok = p.value(p.input.requestID, vars)
	return in, ok
}

// value is v's literal, or its variable's value when that is a string, or null where the
// variable's type allows null.
func (p *claimPlan) value(v planValue, vars map[string]any) (*string, bool) {
	if v.variable == "" {
		return v.literal, true
	}
	switch x := vars[v.variable].(type) {
	case nil:
		return nil, !p.vars.ForName(v.variable).Type.NonNull
	case string:
		return &x, true
	}
	return nil, false
}

// run answers the claim as the executor does: redeemCoupon's @hasRole around the resolver (a
// panic becomes Recover's error, as in the executor), then the payload's selection; an error is
// presented by ErrorPresenter on the field's path and location, with data null (redeemCoupon is
// non-null).
func (p *claimPlan) run(ctx context.Context, r *Resolver, in model.RedeemCouponInput) *graphql.Response {
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Object: "Mutation", Field: p.field, IsMethod: true, IsResolver: true})
	res, err := p.resolve(ctx, r, in)
	if err != nil {
		return &graphql.Response{Errors: gqlerror.List{ErrorPresenter(ctx, graphql.ErrorOnPath(ctx, err))}, Data: []byte("null")}
	}
	b := bytes.NewBuffer(make([]byte, 0, 256)) // a claim's answer, without regrowing
	b.WriteByte('{')
	graphql.MarshalString(p.field.Alias).MarshalGQL(b)
	b.WriteByte(':')
	writeObject(b, p.selected, res, nil, nil)
	b.WriteByte('}')
	return &graphql.Response{Data: b.Bytes()}
}

// resolve runs @hasRole and the resolver. A payload without userErrors (which the resolver never
// answers without an error) would be a broken non-null list, so it is an error here too.
func (p *claimPlan) resolve(ctx context.Context, r *Resolver, in model.RedeemCouponInput) (res *model.RedeemCouponPayload, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			res, err = nil, Recover(ctx, rec)
		}
	}()
	out, err := HasRole(ctx, nil, func(ctx context.Context) (any, error) {
		return r.Mutation().RedeemCoupon(ctx, in)
	}, p.roles)
	if err != nil {
		return nil, graphql.AddFieldLocationToError(ctx, err)
	}
	res, _ = out.(*model.RedeemCouponPayload)
	if res == nil || res.UserErrors == nil {
		return nil, graphql.AddFieldLocationToError(ctx, errNullPayload)
	}
	return res, nil
}

// errNullPayload is what the resolver may never answer: no payload and no error.
var errNullPayload = errors.New("redeemCoupon answered no payload")

// writeObject writes the selected fields of one object of the payload: the payload itself, a
// redemption or a user error (the others nil).
func writeObject(b *bytes.Buffer, fields []planField, pl *model.RedeemCouponPayload, red *claim.Redemption, ue *coupon.Error) {
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
		case leafRedemption:
			if pl.Redemption == nil {
				b.WriteString("null")
			} else {
				writeObject(b, f.children, nil, pl.Redemption, nil)
			}
		case leafUserErrors:
			b.WriteByte('[')
			for j, e := range pl.UserErrors {
				if j > 0 {
					b.WriteByte(',')
				}
				writeObject(b, f.children, nil, nil, e)
			}
			b.WriteByte(']')
		case leafID:
			graphql.MarshalID(red.ID).MarshalGQL(b)
		case leafStatus:
			graphql.MarshalString(string(red.Status)).MarshalGQL(b)
		case leafFailureReason:
			writeOptionalString(b, red.FailureReason)
		case leafCode:
			graphql.MarshalString(string(ue.Code)).MarshalGQL(b)
		case leafField:
			writeStrings(b, ue.Field)
		case leafMessage:
			graphql.MarshalString(ue.Message).MarshalGQL(b)
		}
	}
	b.WriteByte('}')
}

func writeOptionalString(b *bytes.Buffer, s *string) {
	if s == nil {
		b.WriteString("null")
		return
	}
	graphql.MarshalString(*s).MarshalGQL(b)
}

func writeStrings(b *bytes.Buffer, list []string) {
	if list == nil {
		b.WriteString("null")
		return
	}
	b.WriteByte('[')
	for i, s := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		graphql.MarshalString(s).MarshalGQL(b)
	}
	b.WriteByte(']')
}
