package graph

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"coupond/auth"
	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/ent"
	"coupond/graph/model"
	"coupond/services"
	"coupond/testutil/stack"
)

const testSecret = "graph-test-secret"

type env struct {
	t       *testing.T
	srv     *httptest.Server
	handler http.Handler // what srv serves
	db      *ent.Client
	sqlDB   *sql.DB
	signer  *auth.Signer
	stack   *stack.Stack
}

// testSettings are the settings newEnv's viewer reports.
var testSettings = model.ServerSettings{StatsTimeZone: "Asia/Shanghai", StatsMaxDays: 366, UploadMaxBytes: 64 << 20, RedeemMode: "sync"}

func newEnv(t *testing.T, name string) *env {
	t.Helper()
	s := stack.New(t, "graph", name, stack.Options{Config: services.Config{Redeem: claim.Config{Mode: claim.ModeSync}}})
	db, sqlDB := s.DB, s.SQL
	signer := auth.NewSigner(testSecret)
	h := NewHandler(&Resolver{Templates: s.Templates, Redeemer: s.Redeemer, Wallet: s.Wallet, Codes: testCodes, Distribution: s.Distribution,
		Checkout: s.Checkout, Reminders: s.Reminders, Stats: s.Stats, Reconciler: s.Reconciler, Settings: testSettings}, HandlerConfig{
		Signer: signer, Introspection: true, ComplexityLimit: 500, DepthLimit: 15, ExecutorOnly: plansOff,
	})
	handler := signer.Middleware(h)
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return &env{t: t, srv: srv, handler: handler, db: db, sqlDB: sqlDB, signer: signer, stack: s}
}

func (e *env) token(a coupon.Actor) string {
	tok, err := e.signer.Issue(a, time.Hour)
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

type gqlResponse struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func (r *gqlResponse) code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// do posts a GraphQL operation with the given bearer token ("" for none).
func (e *env) do(token, query string, vars map[string]any) *gqlResponse {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out gqlResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		e.t.Fatalf("decode: %v", err)
	}
	return &out
}

func field[T any](t *testing.T, r *gqlResponse, name string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.Data[name], &v); err != nil {
		t.Fatalf("data.%s: %v (errors %+v)", name, err, r.Errors)
	}
	return v
}

const createMutation = `mutation($in: CreateCouponTemplateInput!) {
  createCouponTemplate(input: $in) {
    template { id shopNumber name stock totalStock limitPerPerson thresholdAmount discountAmount status type }
    userErrors { code field message }
  }
}`

type templateJSON struct {
	ID              string  `json:"id"`
	ShopNumber      string  `json:"shopNumber"`
	Name            string  `json:"name"`
	Stock           int     `json:"stock"`
	TotalStock      int     `json:"totalStock"`
	LimitPerPerson  int     `json:"limitPerPerson"`
	ThresholdAmount *string `json:"thresholdAmount"`
	DiscountAmount  *string `json:"discountAmount"`
	Status          string  `json:"status"`
}

type payloadJSON struct {
	Template   *templateJSON `json:"template"`
	UserErrors []struct {
		Code    string   `json:"code"`
		Field   []string `json:"field"`
		Message string   `json:"message"`
	} `json:"userErrors"`
}

func validInput() map[string]any {
	return map[string]any{
		"name": "Flash sale", "source": "SHOP", "target": "SHOP_WIDE", "type": "THRESHOLD_OFF",
		"validStartTime": time.Now().Add(-time.Minute).UTC().Format(time.RFC3339),
		"validEndTime":   time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339),
		"stock":          100, "limitPerPerson": 1, "thresholdAmount": "100", "discountAmount": "7",
	}
}

var (
	shopA = coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}
	shopB = coupon.Actor{UserID: 2, Role: coupon.RoleMerchant, Shop: 2002}
	user  = coupon.Actor{UserID: 77, Role: coupon.RoleUser}
)

func (e *env) create(a coupon.Actor) *templateJSON {
	e.t.Helper()
	p := field[payloadJSON](e.t, e.do(e.token(a), createMutation, map[string]any{"in": validInput()}), "createCouponTemplate")
	if p.Template == nil || len(p.UserErrors) > 0 {
		e.t.Fatalf("create: %+v", p)
	}
	return p.Template
}

func TestCreateTemplateOverGraphQL(t *testing.T) {
	e := newEnv(t, "create")
	tpl := e.create(shopA)
	if tpl.ShopNumber != "1001" || tpl.Stock != 100 || *tpl.ThresholdAmount != "100.00" || *tpl.DiscountAmount != "7.00" || tpl.Status != "ACTIVE" {
		t.Fatalf("template = %+v", tpl)
	}
	// The shop comes from the token, never from the input.
	in := validInput()
	in["stock"], in["name"], in["discountAmount"] = 0, "", "100"
	p := field[payloadJSON](t, e.do(e.token(shopA), createMutation, map[string]any{"in": in}), "createCouponTemplate")
	if p.Template != nil || len(p.UserErrors) != 3 {
		t.Fatalf("want 3 userErrors and no template, got %+v", p)
	}
	for _, ue := range p.UserErrors {
		if ue.Code != "INVALID_INPUT" || len(ue.Field) != 2 || ue.Field[0] != "input" {
			t.Fatalf("userError = %+v", ue)
		}
	}
}

func TestAuthorization(t *testing.T) {
	e := newEnv(t, "authz")
	tpl := e.create(shopA)
	list := `{ couponTemplates { totalCount edges { node { id } } } }`
	terminate := `mutation($id: ID!) { terminateCouponTemplate(input: {templateId: $id}) { template { id status } userErrors { code } } }`

	if r := e.do("", list, nil); r.code() != "UNAUTHENTICATED" {
		t.Fatalf("no token: %+v", r)
	}
	if r := e.do("not-a-jwt", list, nil); r.code() != "UNAUTHENTICATED" {
		t.Fatalf("bad token: %+v", r)
	}
	wrongKey, _ := auth.NewSigner("another-secret").Issue(shopA, time.Hour)
	if r := e.do(wrongKey, list, nil); r.code() != "UNAUTHENTICATED" {
		t.Fatalf("token signed with another key: %+v", r)
	}
	if r := e.do(e.token(user), createMutation, map[string]any{"in": validInput()}); r.code() != "FORBIDDEN" {
		t.Fatalf("USER creating a template: %+v", r)
	}
	if r := e.do(e.token(user), terminate, map[string]any{"id": tpl.ID}); r.code() != "FORBIDDEN" {
		t.Fatalf("USER terminating: %+v", r)
	}
	// Another shop: NOT_FOUND, never FORBIDDEN, so ids do not leak; and nothing changes.
	p := field[payloadJSON](t, e.do(e.token(shopB), terminate, map[string]any{"id": tpl.ID}), "terminateCouponTemplate")
	if len(p.UserErrors) != 1 || p.UserErrors[0].Code != "NOT_FOUND" || p.Template != nil {
		t.Fatalf("other shop terminating: %+v", p)
	}
	inc := `mutation($id: ID!) { increaseCouponTemplateStock(input: {templateId: $id, amount: 5}) { template { stock } userErrors { code } } }`
	p = field[payloadJSON](t, e.do(e.token(shopB), inc, map[string]any{"id": tpl.ID}), "increaseCouponTemplateStock")
	if len(p.UserErrors) != 1 || p.UserErrors[0].Code != "NOT_FOUND" {
		t.Fatalf("other shop increasing: %+v", p)
	}
	get := `query($id: ID!) { couponTemplate(id: $id) { id stock status } }`
	if r := e.do(e.token(shopB), get, map[string]any{"id": tpl.ID}); string(r.Data["couponTemplate"]) != "null" {
		t.Fatalf("other shop reading: %s", r.Data["couponTemplate"])
	}
	for _, tok := range []string{"", e.token(user), e.token(shopA)} {
		got := field[*templateJSON](t, e.do(tok, get, map[string]any{"id": tpl.ID}), "couponTemplate")
		if got == nil || got.Status != "ACTIVE" || got.Stock != 100 {
			t.Fatalf("reading own/public template: %+v", got)
		}
	}
	conn := field[struct {
		TotalCount int `json:"totalCount"`
	}](t, e.do(e.token(shopB), list, nil), "couponTemplates")
	if conn.TotalCount != 0 {
		t.Fatalf("shop B lists %d templates of shop A", conn.TotalCount)
	}
	p = field[payloadJSON](t, e.do(e.token(shopA), terminate, map[string]any{"id": tpl.ID}), "terminateCouponTemplate")
	if p.Template == nil || p.Template.Status != "ENDED" {
		t.Fatalf("own terminate: %+v", p)
	}
}

func TestBadInputAndLimits(t *testing.T) {
	e := newEnv(t, "limits")
	get := `query($id: ID!) { couponTemplate(id: $id) { id } }`
	if r := e.do("", get, map[string]any{"id": "abc"}); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("malformed id: %+v", r)
	}
	if r := e.do("", get, map[string]any{"id": "123"}); len(r.Errors) > 0 || string(r.Data["couponTemplate"]) != "null" {
		t.Fatalf("unknown id: %+v", r)
	}
	deep := "{ __schema { types { fields { type " + strings.Repeat("{ ofType ", 12) + "{ name }" + strings.Repeat(" }", 12) + " } } } }"
	if r := e.do("", deep, nil); r.code() != "COMPLEXITY_LIMIT_EXCEEDED" {
		t.Fatalf("deep query: %+v", r)
	}
	if r := e.do(e.token(shopA), `{ couponTemplates(first: 1000) { totalCount } }`, nil); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("page too large: %+v", r)
	}
	if r := e.do(e.token(shopA), `{ couponTemplates(after: "garbage") { totalCount } }`, nil); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("bad cursor: %+v", r)
	}
	in := validInput()
	in["discountAmount"] = "seven"
	if r := e.do(e.token(shopA), createMutation, map[string]any{"in": in}); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("malformed decimal: %+v", r)
	}
	r := e.do("", `{ __schema { queryType { name } } }`, nil)
	if len(r.Errors) > 0 || !strings.Contains(string(r.Data["__schema"]), "Query") {
		t.Fatalf("introspection: %+v", r)
	}
}

func TestInternalErrorsHideTheirCause(t *testing.T) {
	e := newEnv(t, "internal")
	e.db.Close() // every query now fails inside the driver
	r := e.do(e.token(shopA), `{ couponTemplates { totalCount } }`, nil)
	if r.code() != "INTERNAL" || r.Errors[0].Message != "internal error" {
		t.Fatalf("want a bare INTERNAL error, got %+v", r)
	}
}

func TestRedeemOverGraphQL(t *testing.T) {
	e := newEnv(t, "redeem")
	in := validInput()
	in["stock"], in["limitPerPerson"] = 2, 1
	p := field[payloadJSON](t, e.do(e.token(shopA), createMutation, map[string]any{"in": in}), "createCouponTemplate")
	tplID := p.Template.ID
	redeem := `mutation($id: ID!, $req: String) { redeemCoupon(input: {templateId: $id, requestId: $req}) {
	  redemption { id status coupon { id code status source receiveCount template { id } } }
	  userErrors { code field message } } }`
	type redeemPayload struct {
		Redemption *struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Coupon *struct {
				ID           string `json:"id"`
				Code         string `json:"code"`
				Status       string `json:"status"`
				Source       string `json:"source"`
				ReceiveCount int    `json:"receiveCount"`
				Template     struct {
					ID string `json:"id"`
				} `json:"template"`
			} `json:"coupon"`
		} `json:"redemption"`
		UserErrors []struct {
			Code string `json:"code"`
		} `json:"userErrors"`
	}
	r := field[redeemPayload](t, e.do(e.token(user), redeem, map[string]any{"id": tplID, "req": "r1"}), "redeemCoupon")
	if r.Redemption == nil || r.Redemption.Status != "ISSUED" || r.Redemption.Coupon == nil ||
		r.Redemption.Coupon.Status != "UNUSED" || r.Redemption.Coupon.Source != "CLAIM" ||
		r.Redemption.Coupon.ReceiveCount != 1 || r.Redemption.Coupon.Template.ID != tplID || len(r.UserErrors) != 0 {
		t.Fatalf("sync redeem = %+v", r)
	}
	again := field[redeemPayload](t, e.do(e.token(user), redeem, map[string]any{"id": tplID, "req": "r1"}), "redeemCoupon")
	if again.Redemption == nil || again.Redemption.ID != r.Redemption.ID {
		t.Fatalf("same requestId answered %+v, want redemption %s", again, r.Redemption.ID)
	}
	limited := field[redeemPayload](t, e.do(e.token(user), redeem, map[string]any{"id": tplID, "req": "r2"}), "redeemCoupon")
	if limited.Redemption != nil || len(limited.UserErrors) != 1 || limited.UserErrors[0].Code != "LIMIT_REACHED" {
		t.Fatalf("second claim over the limit = %+v", limited)
	}
	other := coupon.Actor{UserID: 78, Role: coupon.RoleUser}
	_ = field[redeemPayload](t, e.do(e.token(other), redeem, map[string]any{"id": tplID}), "redeemCoupon")
	third := coupon.Actor{UserID: 79, Role: coupon.RoleUser}
	gone := field[redeemPayload](t, e.do(e.token(third), redeem, map[string]any{"id": tplID}), "redeemCoupon")
	if len(gone.UserErrors) != 1 || gone.UserErrors[0].Code != "OUT_OF_STOCK" {
		t.Fatalf("claim of an exhausted template = %+v", gone)
	}
	unknown := field[redeemPayload](t, e.do(e.token(third), redeem, map[string]any{"id": "999"}), "redeemCoupon")
	if len(unknown.UserErrors) != 1 || unknown.UserErrors[0].Code != "NOT_FOUND" {
		t.Fatalf("claim of an unknown template = %+v", unknown)
	}
	if resp := e.do(e.token(shopA), redeem, map[string]any{"id": tplID}); resp.code() != "FORBIDDEN" {
		t.Fatalf("merchant claiming: %+v", resp)
	}
	if resp := e.do(e.token(user), redeem, map[string]any{"id": tplID, "req": "has spaces"}); len(resp.Errors) > 0 {
		t.Fatalf("bad requestId must be a userError: %+v", resp)
	}

	status := `query($id: ID!) { redemption(id: $id) { id status coupon { code } } }`
	if got := e.do(e.token(user), status, map[string]any{"id": r.Redemption.ID}); !strings.Contains(string(got.Data["redemption"]), `"ISSUED"`) {
		t.Fatalf("own redemption: %s %+v", got.Data["redemption"], got.Errors)
	}
	if got := e.do(e.token(other), status, map[string]any{"id": r.Redemption.ID}); string(got.Data["redemption"]) != "null" {
		t.Fatalf("another user's redemption: %s", got.Data["redemption"])
	}
	mine := `{ myCoupons(status: UNUSED) { totalCount edges { node { code status template { name } } } } }`
	conn := field[struct {
		TotalCount int `json:"totalCount"`
	}](t, e.do(e.token(user), mine, nil), "myCoupons")
	if conn.TotalCount != 1 {
		t.Fatalf("myCoupons total = %d, want 1", conn.TotalCount)
	}
	used := field[struct {
		TotalCount int `json:"totalCount"`
	}](t, e.do(e.token(user), `{ myCoupons(status: USED) { totalCount } }`, nil), "myCoupons")
	if used.TotalCount != 0 {
		t.Fatalf("USED filter total = %d, want 0", used.TotalCount)
	}
}

func TestIntrospectionIsOffInProduction(t *testing.T) {
	srv := httptest.NewServer(NewHandler(&Resolver{}, HandlerConfig{
		Signer: auth.NewSigner(testSecret), Introspection: false, ComplexityLimit: 500, DepthLimit: 15,
	}))
	defer srv.Close()
	e := &env{t: t, srv: srv}
	if r := e.do("", `{ __schema { queryType { name } } }`, nil); len(r.Errors) == 0 {
		t.Fatalf("introspection answered in production: %s", r.Data["__schema"])
	}
}

func TestPanicsBecomeBareInternalErrors(t *testing.T) {
	err := Recover(context.Background(), "boom: SELECT * FROM secrets")
	gqlErr := ErrorPresenter(context.Background(), err)
	if gqlErr.Message != "internal error" || gqlErr.Extensions["code"] != "INTERNAL" {
		t.Fatalf("presented panic = %+v", gqlErr)
	}
	if strings.Contains(gqlErr.Error(), "SELECT") || strings.Contains(gqlErr.Error(), "goroutine") {
		t.Fatalf("the panic's detail reached the client: %s", gqlErr.Error())
	}
}
