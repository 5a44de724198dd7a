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

// run answers the operation as the executor does, or returns false (before anything ran) when its
// input does not unmarshal as the executor's would: the executor then refuses it in its own words.
// The resolver runs inside the operation context's root-field and field middleware, with @hasRole
// inside those (as the generated directive chain is); a panic becomes the operation context's
// Recover error, as in the executor; an error is presented by ErrorPresenter on the field's path
// and location, with data null (redeemCoupon is non-null).
func (p *claimPlan) run(ctx context.Context, oc *graphql.OperationContext, plans *claimPlans) (*graphql.Response, bool) {
	in, ok := p.input(oc.Variables)
	if !ok {
		return nil, false
	}
	ctx = graphql.WithRootFieldContext(ctx, &graphql.RootFieldContext{Object: p.field.Name, Field: p.field})
	var res *model.RedeemCouponPayload
	var errs gqlerror.List
	oc.RootResolverMiddleware(ctx, func(ctx context.Context) graphql.Marshaler {
		res, errs = p.resolve(ctx, oc, plans, in)
		return graphql.Null
	})
	if errs != nil {
		return &graphql.Response{Errors: errs, Data: []byte("null")}, true
	}
	b := bytes.NewBuffer(make([]byte, 0, 256)) // a claim's answer, without regrowing
	b.WriteByte('{')
	graphql.MarshalString(p.field.Alias).MarshalGQL(b)
	b.WriteByte(':')
	writeObject(b, p.selected, res, nil, nil)
	b.WriteByte('}')
	return &graphql.Response{Data: b.Bytes()}, true
}

// input is redeemCoupon's input as the generated code unmarshals it from gqlgen's coerced
// variables (ArgumentMap): templateId with graphql.UnmarshalID, requestId with
// graphql.UnmarshalString where it is not null; false when either does not unmarshal.
func (p *claimPlan) input(vars map[string]any) (model.RedeemCouponInput, bool) {
	var in model.RedeemCouponInput
	obj, ok := p.field.ArgumentMap(vars)["input"].(map[string]any)
	if !ok {
		return in, false
	}
	t, err := graphql.UnmarshalID(obj["templateId"])
	if err != nil {
		return in, false
	}
	in.TemplateID = t
	if r := obj["requestId"]; r != nil {
		s, err := graphql.UnmarshalString(r)
		if err != nil {
			return in, false
		}
		in.RequestID = &s
	}
	return in, true
}

// resolve runs redeemCoupon's resolver (resolveRoot). A payload without userErrors (which the
// resolver never answers without an error) would be a broken non-null list, so it is an error
// here too.
func (p *claimPlan) resolve(ctx context.Context, oc *graphql.OperationContext, plans *claimPlans, in model.RedeemCouponInput) (*model.RedeemCouponPayload, gqlerror.List) {
	out, errs := resolveRoot(ctx, oc, plans, "Mutation", p.field, plans.roles, func(ctx context.Context) (any, error) {
		return plans.resolver.Mutation().RedeemCoupon(ctx, in)
	}, func(out any) error {
		if res, _ := out.(*model.RedeemCouponPayload); res == nil || res.UserErrors == nil {
			return errNullPayload
		}
		return nil
	})
	res, _ := out.(*model.RedeemCouponPayload)
	return res, errs
}

// resolveRoot runs a planned root field's resolver (call) as the executor does: inside the field
// middleware, with @hasRole(roles) inside that (the field context carries no Args: field
// interceptors, which read them, turn the plans off). An answer that check refuses is an error;
// a panic becomes the operation context's Recover error; an error is presented by ErrorPresenter
// on the field's path and location.
func resolveRoot(ctx context.Context, oc *graphql.OperationContext, plans *claimPlans, object string, field graphql.CollectedField,
	roles []coupon.Role, call graphql.Resolver, check func(any) error) (out any, errs gqlerror.List) {
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Object: object, Field: field, IsMethod: true, IsResolver: true})
	defer func() {
		if rec := recover(); rec != nil {
			out, errs = nil, gqlerror.List{ErrorPresenter(ctx, graphql.ErrorOnPath(ctx, oc.Recover(ctx, rec)))}
		}
	}()
	out, err := oc.ResolverMiddleware(ctx, func(ctx context.Context) (any, error) {
		return plans.hasRole(ctx, nil, call, roles)
	})
	if err == nil {
		err = check(out)
	}
	if err != nil {
		return nil, gqlerror.List{ErrorPresenter(ctx, graphql.ErrorOnPath(ctx, graphql.AddFieldLocationToError(ctx, err)))}
	}
	return out, nil
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
