package graph

import (
	"encoding/json"
	"strings"
	"testing"

	"coupond/coupon"
)

// nodeJSON is what `node(id)` answers with every type's fields selected.
type nodeJSON struct {
	Typename string `json:"__typename"`
	ID       string `json:"id"`
	Name     string `json:"name"`    // CouponTemplate
	Code     string `json:"code"`    // UserCoupon
	Status   string `json:"status"`  // UserCoupon
	Outcome  string `json:"outcome"` // Redemption's status
}

const nodeQuery = `query($id: ID!) { node(id: $id) { __typename id
  ... on CouponTemplate { name } ... on UserCoupon { code status } ... on Redemption { outcome: status } } }`

func (e *env) node(a *coupon.Actor, id string) (*nodeJSON, *gqlResponse) {
	e.t.Helper()
	tok := ""
	if a != nil {
		tok = e.token(*a)
	}
	resp := e.do(tok, nodeQuery, map[string]any{"id": id})
	var n *nodeJSON
	if raw, ok := resp.Data["node"]; ok {
		if err := json.Unmarshal(raw, &n); err != nil {
			e.t.Fatalf("node: %v", err)
		}
	}
	return n, resp
}

// node(id) refetches templates, coupons and redemptions by the ids the API hands out, with the
// same visibility as the typed queries.
func TestNodeFetchesEveryIdentifiableType(t *testing.T) {
	e := newEnv(t, "node")
	tpl := e.create(shopA)
	redeem := `mutation($id: ID!) { redeemCoupon(input: {templateId: $id, requestId: "n1"}) {
	  redemption { id coupon { id code } } userErrors { code } } }`
	r := field[struct {
		Redemption *struct {
			ID     string `json:"id"`
			Coupon *struct {
				ID   string `json:"id"`
				Code string `json:"code"`
			} `json:"coupon"`
		} `json:"redemption"`
	}](t, e.do(e.token(user), redeem, map[string]any{"id": tpl.ID}), "redeemCoupon")
	if r.Redemption == nil || r.Redemption.Coupon == nil {
		t.Fatalf("redeem: %+v", r)
	}
	couponID, redemptionID := r.Redemption.Coupon.ID, r.Redemption.ID
	other := coupon.Actor{UserID: 78, Role: coupon.RoleUser}
	platform := coupon.Actor{UserID: 9, Role: coupon.RolePlatform}

	for _, c := range []struct {
		name     string
		actor    *coupon.Actor
		id       string
		typename string // "" wants null
	}{
		{"template, anonymous", nil, tpl.ID, "CouponTemplate"},
		{"template, its shop", &shopA, tpl.ID, "CouponTemplate"},
		{"template, the platform", &platform, tpl.ID, "CouponTemplate"},
		{"template, another shop", &shopB, tpl.ID, ""},
		{"coupon, its owner", &user, couponID, "UserCoupon"},
		{"coupon, another user", &other, couponID, ""},
		{"coupon, anonymous", nil, couponID, ""},
		{"coupon, a merchant", &shopA, couponID, ""},
		{"redemption, its owner", &user, redemptionID, "Redemption"},
		{"redemption, another user", &other, redemptionID, ""},
		{"redemption, anonymous", nil, redemptionID, ""},
		{"unknown id", &user, "999", ""},
		{"unknown redemption", &user, tpl.ID + "-1", ""},
	} {
		n, resp := e.node(c.actor, c.id)
		switch {
		case len(resp.Errors) > 0:
			t.Errorf("%s: errors %+v", c.name, resp.Errors)
		case c.typename == "" && n != nil:
			t.Errorf("%s: got %+v, want null", c.name, n)
		case c.typename != "" && (n == nil || n.Typename != c.typename || n.ID != c.id):
			t.Errorf("%s: got %+v, want a %s with id %s", c.name, n, c.typename, c.id)
		}
	}
	if n, _ := e.node(&user, couponID); n == nil || n.Code != r.Redemption.Coupon.Code || n.Status != "UNUSED" {
		t.Errorf("own coupon: %+v", n)
	}
	if n, _ := e.node(&user, redemptionID); n == nil || n.Outcome != "ISSUED" {
		t.Errorf("own redemption: %+v", n)
	}
	if n, _ := e.node(nil, tpl.ID); n == nil || n.Name != tpl.Name {
		t.Errorf("template: %+v", n)
	}
	if _, resp := e.node(nil, "12x"); resp.code() != "BAD_USER_INPUT" {
		t.Errorf("malformed id: %+v", resp)
	}
}

type connJSON struct {
	TotalCount int `json:"totalCount"`
	Edges      []struct {
		Cursor string `json:"cursor"`
		Node   struct {
			ID string `json:"id"`
		} `json:"node"`
	} `json:"edges"`
	PageInfo struct {
		HasNextPage     bool    `json:"hasNextPage"`
		HasPreviousPage bool    `json:"hasPreviousPage"`
		StartCursor     *string `json:"startCursor"`
		EndCursor       *string `json:"endCursor"`
	} `json:"pageInfo"`
}

const templatesPage = `query($first: Int, $after: String, $last: Int, $before: String) {
  couponTemplates(first: $first, after: $after, last: $last, before: $before) {
    totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`

// Pages carry Relay's full PageInfo both ways (first/after forward, last/before backward);
// arguments mixing the two directions are coded refusals.
func TestConnectionPageInfo(t *testing.T) {
	e := newEnv(t, "relay_pages")
	var ids []string
	for range 3 {
		ids = append([]string{e.create(shopA).ID}, ids...) // newest first
	}
	tok := e.token(shopA)
	page := func(vars map[string]any) connJSON {
		return field[connJSON](t, e.do(tok, templatesPage, vars), "couponTemplates")
	}
	p1 := page(map[string]any{"first": 2})
	if p1.TotalCount != 3 || len(p1.Edges) != 2 || p1.Edges[0].Node.ID != ids[0] || p1.Edges[1].Node.ID != ids[1] ||
		!p1.PageInfo.HasNextPage || p1.PageInfo.HasPreviousPage ||
		p1.PageInfo.StartCursor == nil || *p1.PageInfo.StartCursor != p1.Edges[0].Cursor ||
		p1.PageInfo.EndCursor == nil || *p1.PageInfo.EndCursor != p1.Edges[1].Cursor {
		t.Fatalf("first page: %+v", p1)
	}
	p2 := page(map[string]any{"first": 2, "after": *p1.PageInfo.EndCursor})
	if len(p2.Edges) != 1 || p2.Edges[0].Node.ID != ids[2] || p2.PageInfo.HasNextPage ||
		*p2.PageInfo.StartCursor != p2.Edges[0].Cursor || *p2.PageInfo.EndCursor != p2.Edges[0].Cursor {
		t.Fatalf("second page: %+v", p2)
	}
	empty := page(map[string]any{"after": *p2.PageInfo.EndCursor})
	if len(empty.Edges) != 0 || empty.PageInfo.StartCursor != nil || empty.PageInfo.EndCursor != nil || empty.PageInfo.HasNextPage {
		t.Fatalf("page past the end: %+v", empty)
	}

	cursor := *p1.PageInfo.EndCursor
	for name, c := range map[string]struct {
		vars  map[string]any
		field string
		msg   string
	}{
		"first and last":   {map[string]any{"first": 2, "last": 2}, "last", "not both"},
		"first and before": {map[string]any{"first": 2, "before": cursor}, "before", "use it with last"},
		"last and after":   {map[string]any{"last": 2, "after": cursor}, "after", "use it with first"},
		"last too large":   {map[string]any{"last": 101}, "last", "between 1 and 100"},
		"foreign before":   {map[string]any{"before": "bm9wZQ"}, "before", "not a cursor"},
	} {
		resp := e.do(tok, templatesPage, c.vars)
		if resp.code() != "BAD_USER_INPUT" || !strings.Contains(resp.Errors[0].Message, c.msg) {
			t.Errorf("%s: %+v, want BAD_USER_INPUT about %q", name, resp.Errors, c.msg)
		}
	}
	// Backward from the end: the oldest two, newest first, and a page before them.
	b1 := page(map[string]any{"last": 2})
	if len(b1.Edges) != 2 || b1.Edges[0].Node.ID != ids[1] || b1.Edges[1].Node.ID != ids[2] ||
		!b1.PageInfo.HasPreviousPage || b1.PageInfo.HasNextPage || *b1.PageInfo.StartCursor != b1.Edges[0].Cursor {
		t.Fatalf("last 2: %+v", b1)
	}
	b2 := page(map[string]any{"last": 2, "before": *b1.PageInfo.StartCursor})
	if len(b2.Edges) != 1 || b2.Edges[0].Node.ID != ids[0] || b2.PageInfo.HasPreviousPage {
		t.Fatalf("last 2 before %s: %+v", *b1.PageInfo.StartCursor, b2)
	}
	mine := `query($last: Int) { myCoupons(last: $last) { totalCount pageInfo { hasPreviousPage startCursor } } }`
	if resp := e.do(e.token(user), mine, map[string]any{"last": 5}); len(resp.Errors) > 0 {
		t.Errorf("myCoupons backward: %+v", resp)
	}
	if resp := e.do(e.token(user), mine, nil); len(resp.Errors) > 0 || !strings.Contains(string(resp.Data["myCoupons"]), `"hasPreviousPage":false`) {
		t.Errorf("myCoupons page info: %s %+v", resp.Data["myCoupons"], resp.Errors)
	}
}
