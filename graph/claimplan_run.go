package graph

import (
	"bytes"
	"context"
	"errors"
	"time"

	"coupond/coupon"
	"coupond/coupon/checkout"
	"coupond/coupon/claim"
	"coupond/graph/model"
	"coupond/graph/scalar"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// plannedRoot is a root field plans answer: its operation, the type its selection is on, whether
// it answers a list of that type, how its arguments bind to a resolver call and what answers of
// the resolver the executor could not write.
type plannedRoot struct {
	op   ast.Operation
	typ  string
	list bool // [typ!]!; else typ!
	// bind is the field's resolver called with the arguments (gqlgen's coerced ArgumentMap) as the
	// generated code unmarshals them, or false when they do not unmarshal so: the executor then
	// refuses them in its own words.
	bind  func(r *Resolver, args map[string]any) (graphql.Resolver, bool)
	check func(out any) error
}

// plannedRoots are the root fields plans answer, by name.
var plannedRoots = map[string]*plannedRoot{
	"redeemCoupon":         {op: ast.Mutation, typ: "RedeemCouponPayload", bind: bindRedeem, check: checkPayload},
	"applicableCoupons":    {op: ast.Query, typ: "CouponQuote", list: true, bind: bindQuote, check: checkQuotes},
	"lockCoupon":           {op: ast.Mutation, typ: "SettlementPayload", bind: bindLock, check: checkPayload},
	"confirmCouponPayment": {op: ast.Mutation, typ: "SettlementPayload", bind: bindConfirm, check: checkPayload},
	"releaseCoupon":        {op: ast.Mutation, typ: "SettlementPayload", bind: bindRelease, check: checkPayload},
	"refundCoupon":         {op: ast.Mutation, typ: "SettlementPayload", bind: bindRefund, check: checkPayload},
}

// rootPlan is one compiled document of a planned root field.
type rootPlan struct {
	field    graphql.CollectedField // the root field (its alias is the response name)
	selected []planField            // its selection, in order
	roles    []coupon.Role          // its @hasRole(roles:)
	kind     *plannedRoot
}

// run answers the operation as the executor does, or returns false (before anything ran) when its
// arguments do not unmarshal as the executor's would. The resolver runs inside the operation
// context's root-field and field middleware, with @hasRole inside those (as the generated directive
// chain is); a panic becomes the operation context's Recover error, as in the executor; an error
// is presented by ErrorPresenter on the field's path and location, with data null (every planned
// field is non-null). A list is written element after element into one buffer, where the executor
// marshals each element in a goroutine of its own.
func (p *rootPlan) run(ctx context.Context, oc *graphql.OperationContext, plans *claimPlans) (*graphql.Response, bool) {
	call, ok := p.kind.bind(plans.resolver, p.field.ArgumentMap(oc.Variables))
	if !ok {
		return nil, false
	}
	ctx = graphql.WithRootFieldContext(ctx, &graphql.RootFieldContext{Object: p.field.Name, Field: p.field})
	var out any
	var errs gqlerror.List
	oc.RootResolverMiddleware(ctx, func(ctx context.Context) graphql.Marshaler {
		out, errs = resolveRoot(ctx, oc, plans, p, call)
		return graphql.Null
	})
	if errs != nil {
		return &graphql.Response{Errors: errs, Data: []byte("null")}, true
	}
	if !p.kind.list {
		b := bytes.NewBuffer(make([]byte, 0, 256)) // a payload, without regrowing
		b.WriteByte('{')
		graphql.MarshalString(p.field.Alias).MarshalGQL(b)
		b.WriteByte(':')
		writeObject(b, p.selected, out)
		b.WriteByte('}')
		return &graphql.Response{Data: b.Bytes()}, true
	}
	quotes, _ := out.([]*model.CouponQuote)
	b := bytes.NewBuffer(make([]byte, 0, 64+96*len(quotes)))
	b.WriteByte('{')
	graphql.MarshalString(p.field.Alias).MarshalGQL(b)
	b.WriteString(":[")
	for i, q := range quotes {
		if i > 0 {
			b.WriteByte(',')
		}
		writeObject(b, p.selected, q)
	}
	b.WriteString("]}")
	return &graphql.Response{Data: b.Bytes()}, true
}

// resolveRoot runs the planned root field's resolver (call) as the executor does: inside the field
// middleware, with @hasRole(roles) inside that (the field context carries no Args: field
// interceptors, which read them, turn the plans off). An answer the plan's check refuses is an
// error; a panic becomes the operation context's Recover error; an error is presented by
// ErrorPresenter on the field's path and location.
func resolveRoot(ctx context.Context, oc *graphql.OperationContext, plans *claimPlans, p *rootPlan, call graphql.Resolver) (out any, errs gqlerror.List) {
	object := "Mutation"
	if p.kind.op == ast.Query {
		object = "Query"
	}
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Object: object, Field: p.field, IsMethod: true, IsResolver: true})
	defer func() {
		if rec := recover(); rec != nil {
			out, errs = nil, gqlerror.List{ErrorPresenter(ctx, graphql.ErrorOnPath(ctx, oc.Recover(ctx, rec)))}
		}
	}()
	out, err := oc.ResolverMiddleware(ctx, func(ctx context.Context) (any, error) {
		return plans.hasRole(ctx, nil, call, p.roles)
	})
	if err == nil {
		err = p.kind.check(out)
	}
	if err != nil {
		return nil, gqlerror.List{ErrorPresenter(ctx, graphql.ErrorOnPath(ctx, graphql.AddFieldLocationToError(ctx, err)))}
	}
	return out, nil
}

// bindRedeem is redeemCoupon's call on its input: templateId with graphql.UnmarshalID, requestId
// with graphql.UnmarshalString where it is not null.
func bindRedeem(r *Resolver, args map[string]any) (graphql.Resolver, bool) {
	var in model.RedeemCouponInput
	obj, ok := args["input"].(map[string]any)
	if !ok {
		return nil, false
	}
	var err, e error
	in.TemplateID, err = graphql.UnmarshalID(obj["templateId"])
	in.RequestID, e = optionalString(obj["requestId"])
	if errors.Join(err, e) != nil {
		return nil, false
	}
	return func(ctx context.Context) (any, error) { return r.Mutation().RedeemCoupon(ctx, in) }, true
}

// errNullPayload is what a resolver may never answer: no payload, or one without userErrors
// (which the resolvers never answer without an error): the executor could not write it.
var errNullPayload = errors.New("the mutation answered no payload")

// checkPayload refuses a payload the executor could not write as RedeemCouponPayload! or
// SettlementPayload! (a null payload, or null userErrors).
func checkPayload(out any) error {
	switch pl := out.(type) {
	case *model.RedeemCouponPayload:
		if pl != nil && pl.UserErrors != nil {
			return nil
		}
	case *model.SettlementPayload:
		if pl != nil && pl.UserErrors != nil {
			return nil
		}
	}
	return errNullPayload
}

// optionalString unmarshals a nullable String as the generated code does.
func optionalString(v any) (*string, error) {
	if v == nil {
		return nil, nil
	}
	s, err := graphql.UnmarshalString(v)
	return &s, err
}

// writeObject writes the selected fields of one object of an answer (a payload, a redemption, a
// user error, a settlement, a quote or a quote's coupon), each leaf with the marshaler the
// generated code uses.
func writeObject(b *bytes.Buffer, fields []planField, obj any) {
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
		case leafUserErrors:
			b.WriteByte('[')
			for j, e := range userErrorsOf(obj) {
				if j > 0 {
					b.WriteByte(',')
				}
				writeObject(b, f.children, e)
			}
			b.WriteByte(']')
		case leafRedemption:
			if red := obj.(*model.RedeemCouponPayload).Redemption; red == nil {
				b.WriteString("null")
			} else {
				writeObject(b, f.children, red)
			}
		case leafSettlement:
			if st := obj.(*model.SettlementPayload).Settlement; st == nil {
				b.WriteString("null")
			} else {
				writeObject(b, f.children, st)
			}
		case leafCoupon:
			writeObject(b, f.children, obj.(*model.CouponQuote).Coupon)
		default:
			writeLeaf(b, f.leaf, obj)
		}
	}
	b.WriteByte('}')
}

// userErrorsOf is the userErrors of a payload.
func userErrorsOf(obj any) []*coupon.Error {
	if pl, ok := obj.(*model.RedeemCouponPayload); ok {
		return pl.UserErrors
	}
	return obj.(*model.SettlementPayload).UserErrors
}

// writeLeaf writes one scalar field of obj.
func writeLeaf(b *bytes.Buffer, leaf planLeaf, obj any) {
	switch leaf {
	case leafID:
		graphql.MarshalID(obj.(*claim.Redemption).ID).MarshalGQL(b)
	case leafStatus:
		graphql.MarshalString(string(obj.(*claim.Redemption).Status)).MarshalGQL(b)
	case leafFailureReason:
		writeOptionalString(b, obj.(*claim.Redemption).FailureReason)
	case leafCode:
		graphql.MarshalString(string(obj.(*coupon.Error).Code)).MarshalGQL(b)
	case leafField:
		writeStrings(b, obj.(*coupon.Error).Field)
	case leafMessage:
		graphql.MarshalString(obj.(*coupon.Error).Message).MarshalGQL(b)
	case leafApplicable:
		graphql.MarshalBoolean(obj.(*model.CouponQuote).Applicable).MarshalGQL(b)
	case leafDiscount:
		scalar.MarshalDecimal(obj.(*model.CouponQuote).Discount).MarshalGQL(b)
	case leafQuoteCode:
		if c := obj.(*model.CouponQuote).Code; c == nil {
			b.WriteString("null")
		} else {
			graphql.MarshalString(string(*c)).MarshalGQL(b)
		}
	case leafReason:
		writeOptionalString(b, obj.(*model.CouponQuote).Reason)
	case leafCouponID:
		scalar.MarshalID(obj.(*coupon.UserCoupon).ID).MarshalGQL(b)
	case leafCouponStatus:
		graphql.MarshalString(string(obj.(*coupon.UserCoupon).Status())).MarshalGQL(b)
	case leafValidStart:
		scalar.MarshalTime(obj.(*coupon.UserCoupon).ValidStartTime).MarshalGQL(b)
	case leafValidEnd:
		scalar.MarshalTime(obj.(*coupon.UserCoupon).ValidEndTime).MarshalGQL(b)
	default:
		writeSettlementLeaf(b, leaf, obj.(*checkout.Settlement))
	}
}

// writeSettlementLeaf writes one scalar field of a settlement.
func writeSettlementLeaf(b *bytes.Buffer, leaf planLeaf, st *checkout.Settlement) {
	switch leaf {
	case leafSettlementID:
		scalar.MarshalID(st.ID).MarshalGQL(b)
	case leafOrderID:
		scalar.MarshalID(st.OrderID).MarshalGQL(b)
	case leafSettlementStatus:
		graphql.MarshalString(string(st.Status)).MarshalGQL(b)
	case leafOrderAmount:
		scalar.MarshalDecimal(st.OrderAmount).MarshalGQL(b)
	case leafSettlementDiscount:
		scalar.MarshalDecimal(st.DiscountAmount).MarshalGQL(b)
	case leafPayable:
		scalar.MarshalDecimal(st.PayableAmount).MarshalGQL(b)
	case leafLockExpiresAt:
		writeOptionalTime(b, st.LockExpiresAt)
	case leafPaidAt:
		writeOptionalTime(b, st.PaidAt)
	case leafRefundedAt:
		writeOptionalTime(b, st.RefundedAt)
	}
}

func writeOptionalString(b *bytes.Buffer, s *string) {
	if s == nil {
		b.WriteString("null")
		return
	}
	graphql.MarshalString(*s).MarshalGQL(b)
}

func writeOptionalTime(b *bytes.Buffer, t *time.Time) {
	if t == nil {
		b.WriteString("null")
		return
	}
	scalar.MarshalTime(*t).MarshalGQL(b)
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
