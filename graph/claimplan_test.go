package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"coupond/auth"
	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/services"
	"coupond/testutil/stack"

	"coupond/graph/generated"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"
)

// plansOff is COUPON_CLAIM_PLANS=off: the package's claim tests run through gqlgen's executor
// (the tests comparing the plans with the executor build both).
var plansOff = os.Getenv("COUPON_CLAIM_PLANS") == "off"

// planDocs are redeemCoupon documents a plan answers: aliases, __typename, every payload leaf,
// the input inline (variables, literals, null) or as one variable, a named operation.
var planDocs = []struct {
	query, opName string
	replays       bool // the request carries a requestId, so a repeat answers the same bytes
}{
	{query: benchRedeemQuery, replays: true},
	{query: `mutation Claim($t: ID!, $r: String) { c: redeemCoupon(input: {templateId: $t, requestId: $r}) {
  __typename r: redemption { __typename id status failureReason } e: userErrors { __typename code field message } } }`,
		opName: "Claim", replays: true},
	{query: `mutation($in: RedeemCouponInput!) { redeemCoupon(input: $in) { userErrors { message code } redemption { status id } } }`, replays: true},
	{query: `mutation($t: ID!) { redeemCoupon(input: {templateId: $t, requestId: "literal-<>&\u2028"}) { redemption { id } userErrors { code field } } }`, replays: true},
	{query: `mutation($t: ID!) { redeemCoupon(input: {templateId: $t, requestId: null}) { redemption { status } userErrors { field message } } }`},
	{query: `mutation($t: ID!, $r: String!) { redeemCoupon(input: {templateId: $t, requestId: $r}) { userErrors { code } } }`, replays: true},
	{query: `mutation($t: ID!, $r: String = "d") { redeemCoupon(input: {templateId: $t, requestId: $r}) { userErrors { code } } }`, replays: true},
}

// unplannedDocs pass validation but are answered by the executor only.
var unplannedDocs = []string{
	`mutation($t: ID!) { redeemCoupon(input: {templateId: $t}) { redemption { id coupon { code } } userErrors { code } } }`,
	`mutation($t: ID!, $r: String) { redeemCoupon(input: {templateId: $t, requestId: $r}) { ...P } } fragment P on RedeemCouponPayload { userErrors { code } }`,
	`mutation($t: ID!, $s: Boolean!) { redeemCoupon(input: {templateId: $t}) { redemption @include(if: $s) { id } userErrors { code } } }`,
	`mutation($t: ID!) { redeemCoupon(input: {templateId: $t}) { userErrors { code } userErrors { code } } }`,
	`mutation A($t: ID!) { redeemCoupon(input: {templateId: $t}) { userErrors { code } } } mutation B { __typename }`,
}

// TestClaimPlanAnswersAsTheExecutor holds the claim plans to the executor, byte for byte: every
// planned document (planDocs), in both redeem modes, for an accepted claim (a replay of the
// executor's, so the same redemption), refusals (OUT_OF_STOCK, LIMIT_REACHED), top-level errors
// (no token, the wrong role, a malformed and an unknown template id), numbers where an ID or a
// string goes (gqlgen coerces them) and variables gqlgen refuses before a plan sees them (a list
// where a string goes, a missing non-null variable, an unknown input field). It also checks that the planned documents
// are planned and the others are not.
func TestClaimPlanAnswersAsTheExecutor(t *testing.T) {
	for _, mode := range []claim.Mode{claim.ModeAsync, claim.ModeSync} {
		t.Run(string(mode), func(t *testing.T) {
			s := stack.New(t, "graph", "claimplan_"+string(mode), stack.Options{Config: services.Config{Redeem: claim.Config{Mode: mode}}})
			signer := auth.NewSigner(testSecret)
			planned, executor, plans := bothPaths(&Resolver{Templates: s.Templates, Redeemer: s.Redeemer, Wallet: s.Wallet, Codes: testCodes}, signer)
			token := func(a coupon.Actor) string { return tokenOf(t, signer, a) }
			user := token(coupon.Actor{UserID: 7, Role: coupon.RoleUser})
			open := strconv.FormatInt(s.Template(t, 1000, 1000, nil).ID, 10)
			soldOut := strconv.FormatInt(s.Template(t, 1, 1, nil).ID, 10)
			one := strconv.FormatInt(s.Template(t, 100, 1, nil).ID, 10)
			for _, tid := range []string{soldOut, one} { // user 8 takes the only unit; user 7 its one of "one"
				for _, u := range []int64{8, 7} {
					post(t, executor, token(coupon.Actor{UserID: u, Role: coupon.RoleUser}), "", benchRedeemQuery, map[string]any{"t": tid})
				}
			}

			for i, d := range planDocs {
				vars := func(tid string, extra map[string]any) map[string]any {
					v := map[string]any{"t": tid, "r": fmt.Sprintf("plan-%s-%d", mode, i)}
					if strings.Contains(d.query, "$in") {
						v = map[string]any{"in": map[string]any{"templateId": tid, "requestId": v["r"]}}
					}
					for k, x := range extra {
						v[k] = x
					}
					return v
				}
				cases := []struct {
					name, token string
					vars        map[string]any
					executor    bool // a plan leaves it to the executor
				}{
					{name: "out of stock", token: user, vars: vars(soldOut, nil)},
					{name: "limit reached", token: user, vars: vars(one, nil)},
					{name: "no token", vars: vars(open, nil)},
					{name: "merchant", token: token(coupon.Actor{UserID: 9, Role: coupon.RoleMerchant, Shop: 1001}), vars: vars(open, nil)},
					{name: "malformed id", token: user, vars: vars("abc", nil)},
					{name: "unknown template", token: user, vars: vars("999999999", nil)},
					{name: "number id", token: user, vars: vars(open, map[string]any{"t": json.Number("5")})},
					{name: "number requestId", token: user, vars: vars(open, map[string]any{"r": json.Number("5")})},
					{name: "list requestId", token: user, vars: vars(open, map[string]any{"r": []any{"x"}}), executor: strings.Contains(d.query, "$r")},
					{name: "no variables", token: user, executor: true},
				}
				if strings.Contains(d.query, "$in") {
					cases = append(cases, struct {
						name, token string
						vars        map[string]any
						executor    bool
					}{name: "unknown input field", token: user, vars: map[string]any{"in": map[string]any{"templateId": open, "x": 1}}, executor: true})
				}
				if d.replays {
					cases = append(cases, struct {
						name, token string
						vars        map[string]any
						executor    bool
					}{name: "accepted", token: user, vars: vars(open, nil)})
				}
				post(t, planned, "", d.opName, d.query, vars(open, nil)) // seen once: learned
				if p, ok := plans.known.Get(d.query); !ok || p == nil {
					t.Fatalf("doc %d: no plan learned", i)
				}
				for _, c := range cases {
					post(t, executor, c.token, d.opName, d.query, c.vars) // an accepted claim: the first answer
					want := post(t, executor, c.token, d.opName, d.query, c.vars)
					if usesPlan := planTakes(t, d.query, d.opName, c.vars); usesPlan == c.executor {
						t.Errorf("doc %d, %s: the plan takes it: %v, want %v", i, c.name, usesPlan, !c.executor)
					}
					if got := post(t, planned, c.token, d.opName, d.query, c.vars); got != want {
						t.Errorf("doc %d, %s:\nplan     %s\nexecutor %s", i, c.name, got, want)
					}
				}
			}
			for i, q := range unplannedDocs {
				opName := ""
				if strings.HasPrefix(q, "mutation A") {
					opName = "A"
				}
				got := post(t, planned, user, opName, q, map[string]any{"t": open, "s": true})
				if want := post(t, executor, user, opName, q, map[string]any{"t": open, "s": true}); strings.Contains(got, `"errors"`) || strings.Contains(want, `"errors"`) {
					t.Fatalf("unplanned doc %d does not run: %s / %s", i, got, want)
				}
				if p, ok := plans.known.Get(q); !ok || p != nil {
					t.Errorf("unplanned doc %d: learned %v, plan %v; want a nil plan", i, ok, p)
				}
			}
		})
	}
}

// TestClaimPlanPanicIsInternal: a panic under a plan is an INTERNAL error on the field, as the
// executor's recovery makes it, and the plan stays usable.
func TestClaimPlanPanicIsInternal(t *testing.T) {
	signer := auth.NewSigner(testSecret)
	cfg := HandlerConfig{Signer: signer, ComplexityLimit: 500, DepthLimit: 15}
	planned, plans := newHandler(&Resolver{}, cfg) // no Redeemer: the resolver panics
	cfg.ExecutorOnly = true
	executor, _ := newHandler(&Resolver{}, cfg)
	planned, executor = signer.Middleware(planned), signer.Middleware(executor)
	tok, err := signer.Issue(coupon.Actor{UserID: 1, Role: coupon.RoleUser}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{"t": "1", "r": "x"}
	post(t, planned, tok, "", benchRedeemQuery, vars)
	if p, ok := plans.known.Get(benchRedeemQuery); !ok || p == nil || !planTakes(t, benchRedeemQuery, "", vars) {
		t.Fatal("the plan was not learned")
	}
	got, want := post(t, planned, tok, "", benchRedeemQuery, vars), post(t, executor, tok, "", benchRedeemQuery, vars)
	if got != want || !strings.Contains(got, `"code":"INTERNAL"`) {
		t.Errorf("plan %s\nexecutor %s", got, want)
	}
}

// post sends one POST /query and returns its status, Content-Type and body as one string.
func post(t *testing.T, h http.Handler, token, opName, query string, vars map[string]any) string {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "operationName": opName, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return fmt.Sprintf("%d %s %s", w.Code, w.Header().Get("Content-Type"), w.Body.String())
}

// planTakes reports whether a plan answers query with vars (as a client sends them): gqlgen
// accepts the variables (validator.VariableValues, as the executor coerces them), the document
// compiles to a plan and the plan's input unmarshals.
func planTakes(t *testing.T, query, opName string, vars map[string]any) bool {
	t.Helper()
	doc, coerced, ok := coercedVariables(t, query, opName, vars)
	if !ok {
		return false
	}
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	plan := newClaimPlans(schema, &Resolver{}, HasRole).compile(doc)
	if plan == nil {
		return false
	}
	_, ok = plan.kind.bind(&Resolver{}, plan.field.ArgumentMap(coerced))
	return ok
}

// coercedVariables parses query against the schema and coerces vars (as a client sends them) as
// the executor does; false when gqlgen refuses them.
func coercedVariables(t *testing.T, query, opName string, vars map[string]any) (*ast.QueryDocument, map[string]any, bool) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	params, msg := decodePost(b)
	if msg != "" {
		t.Fatal(msg)
	}
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	doc, errs := gqlparser.LoadQueryWithRules(schema, query, nil)
	if errs != nil {
		t.Fatal(errs)
	}
	coerced, err := validator.VariableValues(schema, doc.Operations.ForName(opName), params.Variables)
	return doc, coerced, err == nil
}

// TestConcurrentPlannedClaimsBalance: 16 clients send 600 claims through the planned path (100
// users, 6 attempts each, the third repeating the first's requestId) for a template of 150 units,
// at most 2 per person, with the persister running. The books balance: exactly 150 claims are
// accepted (a repeated requestId answers its first redemption, counted once), MySQL holds one
// coupon per accepted redemption and no user holds more than 2, the stock row is 0, and every
// accepted redemption ends ISSUED. With COUPON_CLAIM_PLANS=off it runs through the executor.
func TestConcurrentPlannedClaimsBalance(t *testing.T) {
	s := stack.New(t, "graph", "claimplan_books", stack.Options{Worker: true, Kick: true})
	signer := auth.NewSigner(testSecret)
	h, plans := newHandler(&Resolver{Templates: s.Templates, Redeemer: s.Redeemer, Wallet: s.Wallet, Codes: testCodes},
		HandlerConfig{Signer: signer, ComplexityLimit: 500, DepthLimit: 15, ExecutorOnly: plansOff})
	h = signer.Middleware(h)
	tpl := s.Template(t, 150, 2, nil)
	tid := strconv.FormatInt(tpl.ID, 10)
	const users, attempts = 100, 6
	tokens := make([]string, users)
	for i := range tokens {
		tok, err := signer.Issue(coupon.Actor{UserID: int64(1000 + i), Role: coupon.RoleUser}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		tokens[i] = tok
	}
	type answer struct {
		Data struct {
			RedeemCoupon struct {
				Redemption *struct{ ID, Status string }
				UserErrors []struct{ Code string }
			}
		}
	}
	type job struct{ user, attempt int }
	jobs := make(chan job)
	results := make([][]answer, users)
	for i := range results {
		results[i] = make([]answer, attempts)
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for j := range jobs {
				req := j.attempt
				if req == 2 {
					req = 0 // a retry of the first attempt
				}
				out := post(t, h, tokens[j.user], "", benchRedeemQuery, map[string]any{"t": tid, "r": fmt.Sprintf("u%d-%d", j.user, req)})
				body := out[strings.Index(out, "{"):]
				if err := json.Unmarshal([]byte(body), &results[j.user][j.attempt]); err != nil {
					t.Errorf("user %d attempt %d: %s", j.user, j.attempt, out)
				}
			}
		})
	}
	post(t, h, tokens[0], "", benchRedeemQuery, map[string]any{"t": "1"}) // learns the plan (an unknown template)
	if !plansOff {
		if p, ok := plans.known.Get(benchRedeemQuery); !ok || p == nil || !planTakes(t, benchRedeemQuery, "", map[string]any{"t": tid, "r": "x"}) {
			t.Fatal("the claim document has no plan")
		}
	}
	for a := range attempts {
		for u := range users {
			jobs <- job{u, a}
		}
	}
	close(jobs)
	wg.Wait()

	accepted := map[string]int{} // redemption id → user
	for u, rs := range results {
		for a, r := range rs {
			red := r.Data.RedeemCoupon.Redemption
			switch {
			case red == nil && len(r.Data.RedeemCoupon.UserErrors) != 1:
				t.Fatalf("user %d attempt %d: neither a redemption nor one userError: %+v", u, a, r)
			case red == nil:
				if c := r.Data.RedeemCoupon.UserErrors[0].Code; c != "OUT_OF_STOCK" && c != "LIMIT_REACHED" {
					t.Fatalf("user %d attempt %d refused %s", u, a, c)
				}
			case a == 2:
				if first := rs[0].Data.RedeemCoupon.Redemption; first == nil || first.ID != red.ID {
					t.Fatalf("user %d: the retry answered %s, the first attempt %+v", u, red.ID, first)
				}
			default:
				accepted[red.ID] = 1000 + u
			}
		}
	}
	if len(accepted) != 150 {
		t.Fatalf("%d claims accepted, want the 150 units", len(accepted))
	}
	deadline := time.Now().Add(30 * time.Second)
	var persisted int
	for {
		if err := s.SQL.QueryRow(`SELECT COUNT(*) FROM user_coupon WHERE template_id = ?`, tpl.ID).Scan(&persisted); err != nil {
			t.Fatal(err)
		}
		if persisted >= len(accepted) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	rows, err := s.SQL.Query(`SELECT redemption_id, user_id FROM user_coupon WHERE template_id = ?`, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	perUser := map[int64]int{}
	seen := map[string]bool{}
	for rows.Next() {
		var rid string
		var user int64
		if err := rows.Scan(&rid, &user); err != nil {
			t.Fatal(err)
		}
		if seen[rid] || int64(accepted[rid]) != user {
			t.Fatalf("coupon of redemption %s (user %d): twice %v, accepted for user %d", rid, user, seen[rid], accepted[rid])
		}
		seen[rid] = true
		if perUser[user]++; perUser[user] > 2 {
			t.Fatalf("user %d holds %d coupons, limit 2", user, perUser[user])
		}
	}
	if len(seen) != len(accepted) {
		t.Fatalf("%d coupons in MySQL for %d accepted claims", len(seen), len(accepted))
	}
	var stock int
	if err := s.SQL.QueryRow(`SELECT stock FROM coupon_template WHERE id = ?`, tpl.ID).Scan(&stock); err != nil || stock != 0 {
		t.Fatalf("stock row = %d, %v; want 0", stock, err)
	}
	for rid, user := range accepted {
		red, err := s.Redeemer.Redemption(s.Ctx, int64(user), rid)
		if err != nil || red.Status != claim.RedemptionIssued {
			t.Fatalf("redemption %s = %+v, %v; want ISSUED", rid, red, err)
		}
	}
}

// recorder is an extension registered before the claim plans: it notes every operation and root
// field it wraps.
type recorder struct{ seen []string }

func (*recorder) ExtensionName() string                   { return "recorder" }
func (*recorder) Validate(graphql.ExecutableSchema) error { return nil }

func (r *recorder) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	r.seen = append(r.seen, "operation "+graphql.GetOperationContext(ctx).OperationName)
	return next(ctx)
}

func (r *recorder) InterceptRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	r.seen = append(r.seen, "root field "+graphql.GetRootFieldContext(ctx).Field.Alias)
	return next(ctx)
}

// fieldRecorder also intercepts every field, which a plan does not run around the payload's fields.
type fieldRecorder struct{ recorder }

func (*fieldRecorder) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	return next(ctx)
}

// TestClaimPlanRunsInsideExtensions: an operation and root-field interceptor registered before
// the plans wraps a planned claim, and a planned quote, exactly as it wraps the executor's; a field
// interceptor turns the plans off.
func TestClaimPlanRunsInsideExtensions(t *testing.T) {
	signer := auth.NewSigner(testSecret)
	for _, doc := range []struct{ opName, query string }{
		{"Claim", `mutation Claim($t: ID!) { c: redeemCoupon(input: {templateId: $t}) { userErrors { code } } }`},
		{"Quote", `query Quote($t: ID!) { q: applicableCoupons(order: {orderId: $t, amount: "1"}) { applicable } }`},
	} {
		run := func(executorOnly bool) (string, []string, *claimPlans) {
			rec := &recorder{}
			h, plans := newHandler(&Resolver{}, HandlerConfig{Signer: signer, ComplexityLimit: 500, DepthLimit: 15,
				ExecutorOnly: executorOnly, Extensions: []graphql.HandlerExtension{rec}})
			h = signer.Middleware(h)
			post(t, h, "", doc.opName, doc.query, map[string]any{"t": "1"}) // learns the plan
			rec.seen = nil
			out := post(t, h, "", doc.opName, doc.query, map[string]any{"t": "1"}) // no token: @hasRole refuses
			return out, rec.seen, plans
		}
		planned, planSeen, plans := run(false)
		if p, ok := plans.known.Get(doc.query); !ok || p == nil {
			t.Fatalf("%s: no plan learned", doc.opName)
		}
		executor, execSeen, _ := run(true)
		if planned != executor || !strings.Contains(planned, "UNAUTHENTICATED") {
			t.Errorf("%s: plan %s\nexecutor %s", doc.opName, planned, executor)
		}
		if fmt.Sprint(planSeen) != fmt.Sprint(execSeen) || len(execSeen) != 2 {
			t.Errorf("%s: the extension saw %q under the plan, %q under the executor", doc.opName, planSeen, execSeen)
		}
	}
	if _, plans := newHandler(&Resolver{}, HandlerConfig{Extensions: []graphql.HandlerExtension{&fieldRecorder{}}}); plans != nil {
		t.Error("a field interceptor left the plans on")
	}
}

// TestClaimPlanDirectives is the tripwire for directives: every planned root field carries only
// @hasRole, which its plan applies, and a directive a plan does not apply, on the field, its
// arguments' input fields or a field of the types its plan answers, turns off the plans of the
// root fields that reach it, and only those.
func TestClaimPlanDirectives(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	for name, root := range plannedRoots {
		parent := schema.Mutation
		if root.op == ast.Query {
			parent = schema.Query
		}
		var names []string
		for _, d := range parent.Fields.ForName(name).Directives {
			names = append(names, d.Name)
		}
		if fmt.Sprint(names) != "[hasRole]" {
			t.Fatalf("%s's directives are %v: make claimPlans apply the new ones (plannedDirectives), then update this test", name, names)
		}
	}
	if p := newClaimPlans(schema, &Resolver{}, HasRole); p == nil || len(p.roles) != len(plannedRoots) {
		t.Fatalf("the schema's planned root fields have plans %v, want all %d", p, len(plannedRoots))
	}
	src, err := os.ReadFile("../schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	settlements := []string{"lockCoupon", "confirmCouponPayment", "releaseCoupon", "refundCoupon"}
	const extra = "\ndirective @traced on FIELD_DEFINITION | INPUT_FIELD_DEFINITION | ARGUMENT_DEFINITION\n"
	for _, c := range []struct {
		name, old, new string
		off            []string // the root fields whose plans it turns off
	}{
		{"on redeemCoupon", "): RedeemCouponPayload! @hasRole(roles: [USER])", "): RedeemCouponPayload! @hasRole(roles: [USER]) @traced", []string{"redeemCoupon"}},
		{"on its argument", "input: RedeemCouponInput!\n  ): RedeemCouponPayload!", "input: RedeemCouponInput! @traced\n  ): RedeemCouponPayload!", []string{"redeemCoupon"}},
		{"on an input field", "templateId: ID!\n  \"Client idempotency", "templateId: ID! @traced\n  \"Client idempotency", []string{"redeemCoupon"}},
		{"on a payload field", "claim was refused (empty when accepted).\"\n  userErrors: [UserError!]!", "claim was refused (empty when accepted).\"\n  userErrors: [UserError!]! @traced", []string{"redeemCoupon"}},
		{"on a user error's field", "\"What went wrong.\"\n  code: ErrorCode!", "\"What went wrong.\"\n  code: ErrorCode! @traced", append([]string{"redeemCoupon"}, settlements...)},
		{"on a field no plan selects", "type RedeemCouponPayload {", "type RedeemCouponPayload {\n  x: Int @traced", nil},
		{"on applicableCoupons", "): [CouponQuote!]! @hasRole(roles: [USER])", "): [CouponQuote!]! @hasRole(roles: [USER]) @traced", []string{"applicableCoupons"}},
		{"on an item's field", "input OrderItemInput {", "input OrderItemInput {\n  x: Int @traced", []string{"applicableCoupons", "lockCoupon"}},
		{"on lockCoupon", "): SettlementPayload! @hasRole(roles: [USER, SERVICE])\n  \"\"\"", "): SettlementPayload! @hasRole(roles: [USER, SERVICE]) @traced\n  \"\"\"", []string{"lockCoupon"}},
		{"on a settlement's field", "type Settlement {", "type Settlement {\n  x: Int @traced", nil},
		{"on a settlement's planned field", "\"The order's amount when locked.\"\n  orderAmount: Decimal!", "\"The order's amount when locked.\"\n  orderAmount: Decimal! @traced", settlements},
		{"on a settlement ref's field", "input SettlementRefInput {\n  \"The order.\"\n  orderId: ID!", "input SettlementRefInput {\n  \"The order.\"\n  orderId: ID! @traced", []string{"releaseCoupon", "refundCoupon"}},
	} {
		if !strings.Contains(string(src), c.old) {
			t.Fatalf("%s: schema.graphql no longer holds %q", c.name, c.old)
		}
		changed, gqlErr := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: strings.Replace(string(src), c.old, c.new, 1) + extra})
		if gqlErr != nil {
			t.Fatalf("%s: %v", c.name, gqlErr)
		}
		p := newClaimPlans(changed, &Resolver{}, HasRole)
		for name := range plannedRoots {
			_, on := p.roles[name]
			if off := slices.Contains(c.off, name); on == off {
				t.Errorf("a directive %s: %s planned %v, want %v", c.name, name, on, !off)
			}
		}
	}
}

// reviewedExtensions are the extension types reviewed for claim plans: none intercepts fields or
// responses (what a plan does not run) but statsLoaders, whose loader no claim payload reads, and
// the plans come last.
var reviewedExtensions = []string{"graph.queryGuard", "graph.persistedQueries", "extension.Introspection", "*graph.operationLimits",
	"graph.statsLoaders", "*graph.claimPlans"}

// TestClaimPlanExtensionsReviewed is the tripwire for extensions: the handler registers only
// reviewed extension types, the claim plans last. It reads gqlgen's private list of the
// server's extensions, so it also fails if that moves.
func TestClaimPlanExtensionsReviewed(t *testing.T) {
	srv, plans := newServer(&Resolver{}, HandlerConfig{Introspection: true, ComplexityLimit: 500, DepthLimit: 15})
	if plans == nil {
		t.Fatal("no plans")
	}
	list := reflect.ValueOf(srv).Elem().FieldByName("exec").Elem().FieldByName("extensions")
	var got []string
	for i := range list.Len() {
		got = append(got, list.Index(i).Elem().Type().String())
	}
	if fmt.Sprint(got) != fmt.Sprint(reviewedExtensions) {
		t.Errorf("the handler registers %v; reviewed for claim plans: %v (review a new extension: does a plan run what it needs?)", got, reviewedExtensions)
	}
}
