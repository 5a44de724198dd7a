package graph

import (
	"context"

	"coupond/coupon"

	"github.com/99designs/gqlgen/graphql"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// claimPlans is the claim path's shortcut past gqlgen's executor. A redeemCoupon document earns a
// plan by passing gqlgen's whole pipeline once (parse, queryGuard, validation, operationLimits: the
// plans are learned by the last operation-context mutator, so only a document every check accepted
// is learned); later POSTs of the same document text are answered by the plan (runPlan): the same
// variable checks for the shapes it accepts, the same @hasRole and the same resolver, its answer
// written field by field with gqlgen's own marshalers, errors through the same presenter with the
// same path and location. A plan covers only what it can answer exactly as the executor does (the
// fields in planLeaves, no fragments, directives or default values); any other document, and any
// request whose variables it does not take as they are, goes the normal way.
// TestClaimPlanAnswersAsTheExecutor holds the two paths to the same bytes. A planned claim never
// reaches the executor, so a handler extension added later that intercepts operations, fields or
// responses (tracing, per-operation metrics) does not see it: such an extension must be added
// here too, or NewHandler built with ExecutorOnly.
type claimPlans struct {
	known *lru.Cache[string, *claimPlan] // by document text; nil: the document is not plannable
	roles []coupon.Role                  // redeemCoupon's @hasRole(roles:), read from the schema
}

// claimPlan is one compiled redeemCoupon operation.
type claimPlan struct {
	opName   string                 // the operation's name ("" when anonymous)
	field    graphql.CollectedField // the redeemCoupon field (its alias is the response name)
	input    planInput              // where templateId and requestId come from
	selected []planField            // the RedeemCouponPayload selection, in order
	roles    []coupon.Role          // as claimPlans.roles
	vars     ast.VariableDefinitionList
}

// planInput says where the input's values come from: a variable holding the whole input object
// (whole), or per field a variable or a literal.
type planInput struct {
	whole                 string
	templateID, requestID planValue
}

// planValue is a variable's name, or a literal (nil: null or absent).
type planValue struct {
	variable string
	literal  *string
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

// newClaimPlans reads redeemCoupon's @hasRole roles from schema; without that directive there is
// no shortcut (nil: every request takes the executor).
func newClaimPlans(schema *ast.Schema) *claimPlans {
	if schema.Mutation == nil {
		return nil
	}
	f := schema.Mutation.Fields.ForName("redeemCoupon")
	if f == nil {
		return nil
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
	return &claimPlans{known: known, roles: roles}
}

func (*claimPlans) ExtensionName() string                   { return "ClaimPlans" }
func (*claimPlans) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext learns the plan of a document that reached it (every check passed) and
// was not seen yet. It never refuses anything.
func (p *claimPlans) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.RawQuery != "" && !p.known.Contains(oc.RawQuery) {
		p.known.Add(oc.RawQuery, compilePlan(oc.Doc, p.roles))
	}
	return nil
}

// compilePlan returns the plan of doc, or nil when doc is not one a plan answers exactly: one
// mutation whose only root field is redeemCoupon, its input inline or one variable, its payload
// selection made of planLeaves fields with distinct response names, and no fragments, directives
// or variable defaults anywhere.
func compilePlan(doc *ast.QueryDocument, roles []coupon.Role) *claimPlan {
	if len(doc.Operations) != 1 || len(doc.Fragments) != 0 {
		return nil
	}
	op := doc.Operations[0]
	if op.Operation != ast.Mutation || len(op.Directives) != 0 || len(op.SelectionSet) != 1 {
		return nil
	}
	for _, v := range op.VariableDefinitions {
		if v.DefaultValue != nil || len(v.Directives) != 0 {
			return nil
		}
	}
	root, ok := op.SelectionSet[0].(*ast.Field)
	if !ok || root.Name != "redeemCoupon" || len(root.Directives) != 0 || len(root.Arguments) != 1 {
		return nil
	}
	in, ok := compileInput(root.Arguments[0], op.VariableDefinitions)
	if !ok {
		return nil
	}
	selected, ok := compileSelection(root.SelectionSet, "RedeemCouponPayload")
	if !ok {
		return nil
	}
	return &claimPlan{opName: op.Name, field: graphql.CollectedField{Field: root, Selections: root.SelectionSet},
		input: in, selected: selected, roles: roles, vars: op.VariableDefinitions}
}

// compileInput reads redeemCoupon's input argument: a variable, or an object of string literals,
// nulls and variables.
func compileInput(arg *ast.Argument, defs ast.VariableDefinitionList) (planInput, bool) {
	if arg.Name != "input" {
		return planInput{}, false
	}
	switch arg.Value.Kind {
	case ast.Variable:
		return planInput{whole: arg.Value.Raw}, varType(defs, arg.Value.Raw) == "RedeemCouponInput"
	case ast.ObjectValue:
	default:
		return planInput{}, false
	}
	var in planInput
	for _, c := range arg.Value.Children {
		v, ok := compileValue(c.Value, defs)
		if !ok {
			return planInput{}, false
		}
		switch {
		case c.Name == "templateId" && (v.literal != nil || varType(defs, v.variable) == "ID"):
			in.templateID = v
		case c.Name == "requestId" && (v.variable == "" || varType(defs, v.variable) == "String"):
			in.requestID = v
		default:
			return planInput{}, false
		}
	}
	return in, true
}

// compileValue reads a string literal, a null or a variable.
func compileValue(v *ast.Value, defs ast.VariableDefinitionList) (planValue, bool) {
	switch v.Kind {
	case ast.Variable:
		return planValue{variable: v.Raw}, defs.ForName(v.Raw) != nil
	case ast.StringValue, ast.BlockValue:
		s := v.Raw
		return planValue{literal: &s}, true
	case ast.NullValue:
		return planValue{}, true
	}
	return planValue{}, false
}

// varType is the named type of variable name ("" when undeclared or a list).
func varType(defs ast.VariableDefinitionList, name string) string {
	if d := defs.ForName(name); d != nil && d.Type.Elem == nil {
		return d.Type.NamedType
	}
	return ""
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
