package graph

import (
	"context"

	"coupond/coupon"

	"github.com/99designs/gqlgen/graphql"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// claimPlans answers the planned root fields (plannedRoots: redeemCoupon, applicableCoupons and
// the settlement mutations) without gqlgen's executor, from inside gqlgen's pipeline. It is
// the handler's last extension, an operation interceptor: an operation reaches it only after
// gqlgen parsed, checked (queryGuard, validation, operationLimits) and coerced it, and every
// operation interceptor registered before it wraps it. On the first sight of a document text it
// compiles a plan, or notes that there is none (compile); an operation with a plan is answered
// with graphql.OneShot (rootPlan.run): its input from gqlgen's coerced variables, the resolver
// inside the operation context's root-field and field middleware and the schema's @hasRole, the
// payload written with gqlgen's marshalers and errors through the same presenter, path and location.
// TestClaimPlanAnswersAsTheExecutor, TestQuotePlanAnswersAsTheExecutor and
// TestSettlementPlanAnswersAsTheExecutor hold the two paths to the same bytes.
//
// What a plan does not run: field middleware around the payload's own fields (id, status, …) and
// response interceptors, which live inside the executor; an extension of either kind turns the
// plans off (plannable), and TestClaimPlanExtensionsReviewed fails when the handler registers an
// extension type nobody reviewed for plans. A directive a plan does not apply turns that root
// field's plans off (newClaimPlans; TestClaimPlanDirectives), and HandlerConfig.ExecutorOnly
// (COUPON_CLAIM_PLANS=off) turns them all off.
type claimPlans struct {
	known    *lru.Cache[string, *rootPlan] // by document text; nil: the document is not plannable
	roles    map[string][]coupon.Role      // by planned root field: its @hasRole(roles:), read from the schema
	hasRole  hasRoleFunc                   // the handler's @hasRole implementation
	resolver *Resolver
}

// hasRoleFunc is the signature of the @hasRole directive's implementation.
type hasRoleFunc func(ctx context.Context, obj any, next graphql.Resolver, roles []coupon.Role) (any, error)

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
	leafSettlement // SettlementPayload's
	leafSettlementID
	leafOrderID
	leafSettlementStatus
	leafOrderAmount
	leafSettlementDiscount
	leafPayable
	leafLockExpiresAt
	leafPaidAt
	leafRefundedAt
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
	"SettlementPayload": {"__typename": leafTypename, "settlement": leafSettlement, "userErrors": leafUserErrors},
	"Settlement": {"__typename": leafTypename, "id": leafSettlementID, "orderId": leafOrderID, "status": leafSettlementStatus,
		"orderAmount": leafOrderAmount, "discount": leafSettlementDiscount, "payable": leafPayable,
		"lockExpiresAt": leafLockExpiresAt, "paidAt": leafPaidAt, "refundedAt": leafRefundedAt},
}

// planChildType is the type of a payload field's sub-selection.
var planChildType = map[planLeaf]string{leafRedemption: "Redemption", leafUserErrors: "UserError", leafCoupon: "UserCoupon",
	leafSettlement: "Settlement"}

// plannedDirectives are the schema directives a plan applies (or that do nothing at run time).
var plannedDirectives = map[string]bool{"hasRole": true, "deprecated": true}

// newClaimPlans returns the plans of schema's plannedRoots, answered by r with hasRole for their
// @hasRole, or nil when none is planned. A root field is planned when it has @hasRole(roles:) and
// the schema puts on it, its arguments, their input types' fields or the types and fields its plan
// answers no directive a plan does not apply (plannedDirectives); any other takes the executor.
func newClaimPlans(schema *ast.Schema, r *Resolver, hasRole hasRoleFunc) *claimPlans {
	roles := map[string][]coupon.Role{}
	for name, root := range plannedRoots {
		parent := schema.Mutation
		if root.op == ast.Query {
			parent = schema.Query
		}
		if parent == nil || !typePlanned(schema, root.typ, 0) {
			continue
		}
		if rs, ok := plannedField(schema, parent.Fields.ForName(name)); ok {
			roles[name] = rs
		}
	}
	if len(roles) == 0 {
		return nil
	}
	known, _ := lru.New[string, *rootPlan](256) // fails only for a size <= 0
	return &claimPlans{known: known, roles: roles, hasRole: hasRole, resolver: r}
}

// typePlanned reports whether typ, the fields of it a plan answers (planLeaves) and the types of
// their sub-selections carry only planned directives.
func typePlanned(schema *ast.Schema, typ string, depth int) bool {
	def := schema.Types[typ]
	if def == nil || !onlyPlanned(def.Directives) || depth > 3 {
		return false
	}
	for name, leaf := range planLeaves[typ] {
		if x := def.Fields.ForName(name); x != nil && !onlyPlanned(x.Directives) {
			return false
		}
		if child, ok := planChildType[leaf]; ok && !typePlanned(schema, child, depth+1) {
			return false
		}
	}
	return true
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

// compile returns the plan of doc, or nil when doc is not one a plan answers exactly: one
// operation whose only root field is a planned one (plannedRoots, of the operation's kind), its
// selection made of planLeaves fields with distinct response names, and no fragments or
// directives anywhere.
func (p *claimPlans) compile(doc *ast.QueryDocument) *rootPlan {
	root := onlyRootField(doc)
	if root == nil {
		return nil
	}
	kind, ok := plannedRoots[root.Name]
	roles, on := p.roles[root.Name]
	if !ok || !on || doc.Operations[0].Operation != kind.op {
		return nil
	}
	selected, ok := compileSelection(root.SelectionSet, kind.typ)
	if !ok {
		return nil
	}
	return &rootPlan{field: graphql.CollectedField{Field: root, Selections: root.SelectionSet}, selected: selected, roles: roles, kind: kind}
}

// onlyRootField returns the root field of doc when doc is one operation with one root field, with
// no fragments and no directives on the operation, its variables or the field; nil otherwise.
func onlyRootField(doc *ast.QueryDocument) *ast.Field {
	if doc == nil || len(doc.Operations) != 1 || len(doc.Fragments) != 0 {
		return nil
	}
	o := doc.Operations[0]
	if len(o.Directives) != 0 || len(o.SelectionSet) != 1 {
		return nil
	}
	for _, v := range o.VariableDefinitions {
		if len(v.Directives) != 0 {
			return nil
		}
	}
	root, ok := o.SelectionSet[0].(*ast.Field)
	if !ok || len(root.Directives) != 0 {
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
