package graph

import (
	"encoding/json"
	"testing"

	"coupond/coupon"
)

const templateStatsQuery = `query($id: ID!, $from: Time, $to: Time) { templateStats(templateId: $id, from: $from, to: $to) {
  templateId templateName totalStock remainingStock issuedCount issuedByOrigin { claim distribution }
  lockedCount usedCount expiredCount refundedCount discountTotal redeemRate daily { date issued used discount refunded expired } } }`

const shopStatsQuery = `query($shop: String) { shopStats(shopNumber: $shop) {
  shopNumber templates issuedCount usedCount discountTotal topByIssued { templateId issuedCount } topByUsed { templateId } } }`

type statsJSON struct {
	TemplateID     string `json:"templateId"`
	TemplateName   string `json:"templateName"`
	TotalStock     int    `json:"totalStock"`
	RemainingStock int    `json:"remainingStock"`
	IssuedCount    int    `json:"issuedCount"`
	IssuedByOrigin struct {
		Claim, Distribution int
	} `json:"issuedByOrigin"`
	DiscountTotal string `json:"discountTotal"`
	Daily         []struct {
		Date   string `json:"date"`
		Issued int    `json:"issued"`
	} `json:"daily"`
}

// templateStats and shopStats over GraphQL: the template's merchant and the platform see the
// numbers, another shop's merchant gets NOT_FOUND from templateStats (as for a missing id) and
// FORBIDDEN from shopStats, a user FORBIDDEN, an anonymous caller UNAUTHENTICATED; bad arguments
// are BAD_USER_INPUT.
func TestStatsOverGraphQL(t *testing.T) {
	e := newEnv(t, "stats")
	tpl := e.create(shopA)
	r := e.do(e.token(user), `mutation($id: ID!) { redeemCoupon(input: {templateId: $id, requestId: "s-1"}) { redemption { status } userErrors { code } } }`,
		map[string]any{"id": tpl.ID})
	if len(r.Errors) > 0 {
		t.Fatalf("redeem: %+v", r.Errors)
	}
	platform := coupon.Actor{UserID: 5, Role: coupon.RolePlatform}
	vars := map[string]any{"id": tpl.ID}
	for _, a := range []coupon.Actor{shopA, platform} {
		s := field[statsJSON](t, e.do(e.token(a), templateStatsQuery, vars), "templateStats")
		if s.TemplateID != tpl.ID || s.TemplateName != tpl.Name || s.TotalStock != 100 || s.RemainingStock != 99 ||
			s.IssuedCount != 1 || s.IssuedByOrigin.Claim != 1 || s.DiscountTotal != "0.00" || len(s.Daily) != 1 || s.Daily[0].Issued != 1 {
			t.Errorf("%s: %+v", a.Role, s)
		}
	}
	for name, c := range map[string]struct {
		token string
		query string
		vars  map[string]any
		code  string
	}{
		"other shop":            {e.token(shopB), templateStatsQuery, vars, "NOT_FOUND"},
		"user":                  {e.token(user), templateStatsQuery, vars, "FORBIDDEN"},
		"anonymous":             {"", templateStatsQuery, vars, "UNAUTHENTICATED"},
		"no such template":      {e.token(shopA), templateStatsQuery, map[string]any{"id": "12345"}, "NOT_FOUND"},
		"platform, no template": {e.token(platform), templateStatsQuery, map[string]any{"id": "12345"}, "NOT_FOUND"},
		"to before from":        {e.token(shopA), templateStatsQuery, map[string]any{"id": tpl.ID, "from": "2026-12-02T00:00:00Z", "to": "2026-12-01T00:00:00Z"}, "BAD_USER_INPUT"},
		"shop: other":           {e.token(shopA), shopStatsQuery, map[string]any{"shop": "2002"}, "FORBIDDEN"},
		"shop: anonymous":       {"", shopStatsQuery, nil, "UNAUTHENTICATED"},
		"shop: user":            {e.token(user), shopStatsQuery, nil, "FORBIDDEN"},
		"shop: platform, none":  {e.token(platform), shopStatsQuery, nil, "BAD_USER_INPUT"},
		"shop: not a number":    {e.token(platform), shopStatsQuery, map[string]any{"shop": "x"}, "BAD_USER_INPUT"},
	} {
		r := e.do(c.token, c.query, c.vars)
		if r.code() != c.code || len(r.Data) > 0 && string(r.Data["templateStats"]) != "null" && string(r.Data["shopStats"]) != "null" && r.Data != nil {
			t.Errorf("%s: code %q, want %s (data %s)", name, r.code(), c.code, r.Data)
		}
	}
	type shopJSON struct {
		ShopNumber  string `json:"shopNumber"`
		Templates   int    `json:"templates"`
		IssuedCount int    `json:"issuedCount"`
		TopByIssued []struct {
			TemplateID  string `json:"templateId"`
			IssuedCount int    `json:"issuedCount"`
		} `json:"topByIssued"`
	}
	for _, c := range []struct {
		a    coupon.Actor
		vars map[string]any
	}{{shopA, nil}, {shopA, map[string]any{"shop": "1001"}}, {platform, map[string]any{"shop": "1001"}}} {
		s := field[shopJSON](t, e.do(e.token(c.a), shopStatsQuery, c.vars), "shopStats")
		if s.ShopNumber != "1001" || s.Templates != 1 || s.IssuedCount != 1 || len(s.TopByIssued) != 1 || s.TopByIssued[0].TemplateID != tpl.ID {
			t.Errorf("shopStats as %s %v: %+v", c.a.Role, c.vars, s)
		}
	}
}

// templateStats of another shop's template answers a merchant byte for byte what a missing id
// answers, so ids do not reveal other shops' templates.
func TestTemplateStatsOfAnotherShopIsMissing(t *testing.T) {
	e := newEnv(t, "stats_missing")
	tpl := e.create(shopA)
	body := func(id string) string {
		b, _ := json.Marshal(map[string]any{"query": templateStatsQuery, "variables": map[string]any{"id": id}})
		return string(b)
	}
	theirs := e.post("application/json", "", body(tpl.ID), e.token(shopB))
	missing := e.post("application/json", "", body("12345"), e.token(shopB))
	if theirs.status != missing.status || theirs.raw != missing.raw {
		t.Errorf("another shop's template: %d %s\na missing id: %d %s", theirs.status, theirs.raw, missing.status, missing.raw)
	}
	if theirs.body.code() != "NOT_FOUND" {
		t.Errorf("another shop's template: %s, want NOT_FOUND", theirs.raw)
	}
}
