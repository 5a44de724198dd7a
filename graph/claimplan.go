package graph

import (
	"context"

	"coupond/coupon"

	"github.com/99designs/gqlgen/graphql"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// claimPlans answers redeemCoupon without gqlgen's executor, from inside gqlgen's pipeline. It is
// the handler's last extension, an operation interceptor: an operation reaches it only after
// gqlgen parsed, checked (queryGuard, validation, operationLimits) and coerced it, and every
// operation interceptor registered before it wraps it. On the first sight of a document text it
// compiles a plan, or notes that there is none (compilePlan); an operation with a plan is answered
// with graphql.OneShot (claimPlan.run): its input from gqlgen's coerced variables, the resolver
// inside the operation context's root-field and field middleware and the schema's @hasRole, the
// payload written with gqlgen's marshalers and errors through the same presenter, path and location.
// TestClaimPlanAnswersAsTheExecutor holds the two paths to the same bytes.
//
// What a plan does not run: field middleware around the payload's own fields (id, status, …) and
// response interceptors, which live inside the executor; an extension of either kind turns the
// plans off (plannable), and TestClaimPlanExtensionsReviewed fails when the handler registers an
// extension type nobody reviewed for plans. A directive the plan does not apply turns them off too
// (newClaimPlans; TestClaimPlanDirectives), and so does HandlerConfig.ExecutorOnly
// (COUPON_CLAIM_PLANS=off).
type claimPlans struct {
	known    *lru.Cache[string, *claimPlan] // by document text; nil: the document is not plannable
	roles    []coupon.Role                  // redeemCoupon's @hasRole(roles:), read from the schema
	hasRole  hasRoleFunc                    // the handler's @hasRole implementation
	resolver *Resolver
}

// hasRoleFunc is the signature of the @hasRole directive's implementation.
type hasRoleFunc func(ctx context.Context, obj any, next graphql.Resolver, roles []coupon.Role) (any, error)

// claimPlan is one compiled redeemCoupon operation.
type claimPlan struct {
	field    graphql.CollectedField // the redeemCoupon field (its alias is the response name)
	selected []planField            // the RedeemCouponPayload selection, in order
}

// planField is one selected field: its response name, what it is, the type it is selected on
// (what __typename answers) and its sub-selection.
type planField struct {
	key      string
	leaf     planLeaf
	typename string
	children []planField
}

// planLeaf names the fields a plan can answer.
type planLeaf int

const (
	leafTypename planLeaf = iota
	leafRedemption
	leafUserErrors
	leafID
	leafStatus
	leafFailureReason
	leafCode
	leafField
	leafMessage
)

// planLeaves are the fields a plan answers, per type of the payload.
var planLeaves = map[string]map[string]planLeaf{
	"RedeemCouponPayload": {"__typename": leafTypename, "redemption": leafRedemption, "userErrors": leafUserErrors},
	"Redemption":          {"__typename": leafTypename, "id": leafID, "status": leafStatus, "failureReason": leafFailureReason},
	"UserError":           {"__typename": leafTypename, "code": leafCode, "field": leafField, "message": leafMessage},
}

// planChildType is the type of a payload field's sub-selection.
var planChildType = map[planLeaf]string{leafRedemption: "Redemption", leafUserErrors: "UserError"}

// plannedDirectives are the schema directives a plan applies (or that do nothing at run time).
var plannedDirectives = map[string]bool{"hasRole": true, "deprecated": true}

// newClaimPlans returns the plans of schema's redeemCoupon, answered by r with hasRole for its
// @hasRole, or nil when the schema puts on redeemCoupon, its argument, its input's fields or the
// payload fields a plan answers a directive a plan does not apply (plannedDirectives), or
// redeemCoupon has no @hasRole(roles:): then every request takes the executor.
func newClaimPlans(schema *ast.Schema, r *Resolver, hasRole hasRoleFunc) *claimPlans {
	if schema.Mutation == nil {
		return nil
	}
	f := schema.Mutation.Fields.ForName("redeemCoupon")
	if f == nil || !onlyPlanned(f.Directives) {
		return nil
	}
	for _, a := range f.Arguments {
		if !onlyPlanned(a.Directives) || a.DefaultValue != nil {
			return nil
		}
		if in := schema.Types[a.Type.Name()]; in != nil {
			for _, x := range in.Fields {
				if !onlyPlanned(x.Directives) || x.DefaultValue != nil {
					return nil
				}
			}
		}
	}
	for typ, leaves := range planLeaves {
		def := schema.Types[typ]
		if def == nil || !onlyPlanned(def.Directives) {
			return nil
		}
		for name := range leaves {
			if x := def.Fields.ForName(name); x != nil && !onlyPlanned(x.Directives) {
				return nil
			}
		}
	}
	d := f.Directives.ForName("hasRole")
	if d == nil || d.Arguments.ForName("roles") == nil {
		return nil
	}
	var roles []coupon.Role
	for _, c := range d.Arguments.ForName("roles").Value.Children {
		roles = append(roles, coupon.Role(c.Value.Raw))
	}
	known, _ := lru.New[string, *claimPlan](256) // fails only for a size <= 0
	return &claimPlans{known: known, roles: roles, hasRole: hasRole, resolver: r}
}

// onlyPlanned reports whether every directive of list is one a plan applies.
func onlyPlanned(list ast.DirectiveList) bool {
	for _, d := range list {
		if !plannedDirectives[d.Name] {
			return false
		}
	}
	return true
}

func (*claimPlans) ExtensionName() string                   { return "ClaimPlans" }
func (*claimPlans) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptOperation answers an operation that has a plan (learning it on the document's first
// sight) and hands any other to the executor.
func (p *claimPlans) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	plan, ok := p.known.Get(oc.RawQuery)
	if !ok {
		plan = compilePlan(oc.Doc)
		p.known.Add(oc.RawQuery, plan)
	}
	if plan == nil {
		return next(ctx)
	}
	resp, ok := plan.run(ctx, oc, p)
	if !ok {
		return next(ctx)
	}
	return graphql.OneShot(resp)
}

// compilePlan returns the plan of doc, or nil when doc is not one a plan answers exactly: one
// mutation whose only root field is redeemCoupon, its payload selection made of planLeaves fields
// with distinct response names, and no fragments or directives anywhere.
func compilePlan(doc *ast.QueryDocument) *claimPlan {
	if doc == nil || len(doc.Operations) != 1 || len(doc.Fragments) != 0 {
		return nil
	}
	op := doc.Operations[0]
	if op.Operation != ast.Mutation || len(op.Directives) != 0 || len(op.SelectionSet) != 1 {
		return nil
	}
	for _, v := range op.VariableDefinitions {
		if len(v.Directives) != 0 {
			return nil
		}
	}
	root, ok := op.SelectionSet[0].(*ast.Field)
	if !ok || root.Name != "redeemCoupon" || len(root.Directives) != 0 {
		return nil
	}
	selected, ok := compileSelection(root.SelectionSet, "RedeemCouponPayload")
	if !ok {
		return nil
	}
	return &claimPlan{field: graphql.CollectedField{Field: root, Selections: root.SelectionSet}, selected: selected}
}

// compileSelection reads a selection of typ made of planLeaves fields with distinct response names.
func compileSelection(set ast.SelectionSet, typ string) ([]planField, bool) {
	leaves := planLeaves[typ]
	seen := map[string]bool{}
	out := make([]planField, 0, len(set))
	for _, sel := range set {
		f, ok := sel.(*ast.Field)
		if !ok || len(f.Directives) != 0 || len(f.Arguments) != 0 {
			return nil, false
		}
		leaf, ok := leaves[f.Name]
		if !ok || seen[f.Alias] {
			return nil, false
		}
		seen[f.Alias] = true
		pf := planField{key: f.Alias, leaf: leaf, typename: typ}
		if child, ok := planChildType[leaf]; ok {
			if pf.children, ok = compileSelection(f.SelectionSet, child); !ok {
				return nil, false
			}
		}
		out = append(out, pf)
	}
	return out, true
}
