package graph

import (
	"context"

	"coupond/coupon"

	"github.com/99designs/gqlgen/graphql"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// claimPlans answers redeemCoupon, and applicableCoupons (quotePlan), without gqlgen's executor,
// from inside gqlgen's pipeline. It is
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
	known      *lru.Cache[string, plan] // by document text; nil: the document is not plannable
	roles      []coupon.Role            // redeemCoupon's @hasRole(roles:), read from the schema
	quoteRoles []coupon.Role            // applicableCoupons' (nil: its documents are not planned)
	hasRole    hasRoleFunc              // the handler's @hasRole implementation
	resolver   *Resolver
}

// plan is one compiled document: run answers it as the executor would, or returns false (before
// anything ran) to hand it to the executor.
type plan interface {
	run(ctx context.Context, oc *graphql.OperationContext, plans *claimPlans) (*graphql.Response, bool)
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
	leafCoupon // CouponQuote's
	leafApplicable
	leafDiscount
	leafQuoteCode
	leafReason
	leafCouponID // UserCoupon's
	leafCouponStatus
	leafValidStart
	leafValidEnd
)

// planLeaves are the fields a plan answers, per type of the payload.
var planLeaves = map[string]map[string]planLeaf{
	"RedeemCouponPayload": {"__typename": leafTypename, "redemption": leafRedemption, "userErrors": leafUserErrors},
	"Redemption":          {"__typename": leafTypename, "id": leafID, "status": leafStatus, "failureReason": leafFailureReason},
	"UserError":           {"__typename": leafTypename, "code": leafCode, "field": leafField, "message": leafMessage},
	"CouponQuote": {"__typename": leafTypename, "coupon": leafCoupon, "applicable": leafApplicable, "discount": leafDiscount,
		"code": leafQuoteCode, "reason": leafReason},
	"UserCoupon": {"__typename": leafTypename, "id": leafCouponID, "status": leafCouponStatus, "validStartTime": leafValidStart,
		"validEndTime": leafValidEnd},
}

// planChildType is the type of a payload field's sub-selection.
var planChildType = map[planLeaf]string{leafRedemption: "Redemption", leafUserErrors: "UserError", leafCoupon: "UserCoupon"}

// plannedDirectives are the schema directives a plan applies (or that do nothing at run time).
var plannedDirectives = map[string]bool{"hasRole": true, "deprecated": true}

// newClaimPlans returns the plans of schema's redeemCoupon and applicableCoupons, answered by r
// with hasRole for their @hasRole, or nil when the schema puts on redeemCoupon, its argument, its
// input's fields or the fields a plan answers a directive a plan does not apply
// (plannedDirectives), or redeemCoupon has no @hasRole(roles:): then every request takes the
// executor. applicableCoupons is planned only when the same holds of it (and its input's lists).
func newClaimPlans(schema *ast.Schema, r *Resolver, hasRole hasRoleFunc) *claimPlans {
	if schema.Mutation == nil {
		return nil
	}
	roles, ok := plannedField(schema, schema.Mutation.Fields.ForName("redeemCoupon"))
	if !ok {
		return nil
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
	var quoteRoles []coupon.Role
	if schema.Query != nil {
		quoteRoles, _ = plannedField(schema, schema.Query.Fields.ForName("applicableCoupons"))
	}
	known, _ := lru.New[string, plan](256) // fails only for a size <= 0
	return &claimPlans{known: known, roles: roles, quoteRoles: quoteRoles, hasRole: hasRole, resolver: r}
}

// plannedField returns the roles of f's @hasRole(roles:) when a plan may answer f: f, its
// arguments and the fields of their input types (and of the input types those fields hold) carry
// only planned directives and no defaults, and f has @hasRole(roles:).
func plannedField(schema *ast.Schema, f *ast.FieldDefinition) ([]coupon.Role, bool) {
	if f == nil || !onlyPlanned(f.Directives) {
		return nil, false
	}
	var inputOK func(name string, depth int) bool
	inputOK = func(name string, depth int) bool {
		in := schema.Types[name]
		if in == nil || in.Kind != ast.InputObject {
			return true
		}
		for _, x := range in.Fields {
			if !onlyPlanned(x.Directives) || x.DefaultValue != nil || depth > 2 || !inputOK(x.Type.Name(), depth+1) {
				return false
			}
		}
		return true
	}
	for _, a := range f.Arguments {
		if !onlyPlanned(a.Directives) || a.DefaultValue != nil || !inputOK(a.Type.Name(), 0) {
			return nil, false
		}
	}
	d := f.Directives.ForName("hasRole")
	if d == nil || d.Arguments.ForName("roles") == nil {
		return nil, false
	}
	var roles []coupon.Role
	for _, c := range d.Arguments.ForName("roles").Value.Children {
		roles = append(roles, coupon.Role(c.Value.Raw))
	}
	return roles, true
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
	pl, ok := p.known.Get(oc.RawQuery)
	if !ok {
		pl = p.compile(oc.Doc)
		p.known.Add(oc.RawQuery, pl)
	}
	if pl == nil {
		return next(ctx)
	}
	resp, ok := pl.run(ctx, oc, p)
	if !ok {
		return next(ctx)
	}
	return graphql.OneShot(resp)
}

// compile returns the plan of doc (a claim's or a quote's), or nil when it has none.
func (p *claimPlans) compile(doc *ast.QueryDocument) plan {
	if c := compilePlan(doc); c != nil {
		return c
	}
	if p.quoteRoles != nil {
		if q := compileQuotePlan(doc); q != nil {
			return q
		}
	}
	return nil
}

// compilePlan returns the claim plan of doc, or nil when doc is not one a plan answers exactly:
// one mutation whose only root field is redeemCoupon, its payload selection made of planLeaves
// fields with distinct response names, and no fragments or directives anywhere.
func compilePlan(doc *ast.QueryDocument) *claimPlan {
	root := onlyRootField(doc, ast.Mutation, "redeemCoupon")
	if root == nil {
		return nil
	}
	selected, ok := compileSelection(root.SelectionSet, "RedeemCouponPayload")
	if !ok {
		return nil
	}
	return &claimPlan{field: graphql.CollectedField{Field: root, Selections: root.SelectionSet}, selected: selected}
}

// onlyRootField returns the root field name of doc when doc is one operation of kind op whose
// only root field that is, with no fragments and no directives on the operation, its variables or
// the field; nil otherwise.
func onlyRootField(doc *ast.QueryDocument, op ast.Operation, name string) *ast.Field {
	if doc == nil || len(doc.Operations) != 1 || len(doc.Fragments) != 0 {
		return nil
	}
	o := doc.Operations[0]
	if o.Operation != op || len(o.Directives) != 0 || len(o.SelectionSet) != 1 {
		return nil
	}
	for _, v := range o.VariableDefinitions {
		if len(v.Directives) != 0 {
			return nil
		}
	}
	root, ok := o.SelectionSet[0].(*ast.Field)
	if !ok || root.Name != name || len(root.Directives) != 0 {
		return nil
	}
	return root
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
