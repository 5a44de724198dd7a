package graph

import (
	"encoding/json"
	"testing"

	"coupond/coupon"
)

const reconciliationQuery = `query($id: ID!) { reconciliation(templateId: $id) {
  templateId totalStock redisStock dbStock issued pending failed balanced drift checkedAt } }`

const templateLogQuery = `query($id: ID!, $first: Int, $after: String) { templateLog(templateId: $id, first: $first, after: $after) {
  totalCount edges { cursor node { actor action at before after } } pageInfo { hasNextPage endCursor } } }`

type reconciliationJSON struct {
	TemplateID string   `json:"templateId"`
	TotalStock int      `json:"totalStock"`
	RedisStock *int     `json:"redisStock"`
	DBStock    int      `json:"dbStock"`
	Issued     int      `json:"issued"`
	Pending    int      `json:"pending"`
	Balanced   bool     `json:"balanced"`
	Drift      []string `json:"drift"`
	CheckedAt  string   `json:"checkedAt"`
}

type templateLogJSON struct {
	TotalCount int `json:"totalCount"`
	Edges      []struct {
		Cursor string `json:"cursor"`
		Node   struct {
			Actor, Action, At string
			Before, After     *string
		} `json:"node"`
	} `json:"edges"`
	PageInfo struct {
		HasNextPage bool    `json:"hasNextPage"`
		EndCursor   *string `json:"endCursor"`
	} `json:"pageInfo"`
}

// reconciliation and templateLog answer the template's merchant and the platform; another shop
// gets NOT_FOUND (as for every template of another shop), a user FORBIDDEN, no token
// UNAUTHENTICATED, a malformed id BAD_USER_INPUT.
func TestReconciliationAndTemplateLogOverGraphQL(t *testing.T) {
	e := newEnv(t, "books")
	tpl := e.create(shopA)
	vars := map[string]any{"id": tpl.ID}
	platform := coupon.Actor{UserID: 9, Role: coupon.RolePlatform}
	for _, a := range []coupon.Actor{shopA, platform} {
		rec := field[reconciliationJSON](t, e.do(e.token(a), reconciliationQuery, vars), "reconciliation")
		if !rec.Balanced || rec.TemplateID != tpl.ID || rec.TotalStock != 100 || rec.DBStock != 100 || rec.RedisStock == nil ||
			*rec.RedisStock != 100 || rec.Issued != 0 || rec.Pending != 0 || len(rec.Drift) != 0 || rec.CheckedAt == "" {
			t.Fatalf("%s: %+v", a.Role, rec)
		}
		log := field[templateLogJSON](t, e.do(e.token(a), templateLogQuery, vars), "templateLog")
		if log.TotalCount != 1 || len(log.Edges) != 1 || log.Edges[0].Node.Action != "CREATE" || log.Edges[0].Node.Actor != "MERCHANT:1" ||
			log.Edges[0].Node.Before != nil || log.Edges[0].Node.After == nil || !json.Valid([]byte(*log.Edges[0].Node.After)) {
			t.Fatalf("%s: %+v", a.Role, log)
		}
	}
	for _, q := range []string{reconciliationQuery, templateLogQuery} {
		for token, want := range map[string]string{e.token(shopB): "NOT_FOUND", e.token(user): "FORBIDDEN", "": "UNAUTHENTICATED"} {
			if r := e.do(token, q, vars); r.code() != want {
				t.Fatalf("want %s, got %+v", want, r)
			}
		}
		if r := e.do(e.token(shopA), q, map[string]any{"id": "x"}); r.code() != "BAD_USER_INPUT" {
			t.Fatalf("malformed id: %+v", r)
		}
	}
	// Pages: a stock increase makes two entries; first: 1 pages through them newest first.
	inc := `mutation($id: ID!) { increaseCouponTemplateStock(input: {templateId: $id, amount: 5}) { template { stock } } }`
	if r := e.do(e.token(shopA), inc, vars); len(r.Errors) > 0 {
		t.Fatalf("increase: %+v", r.Errors)
	}
	page1 := field[templateLogJSON](t, e.do(e.token(shopA), templateLogQuery, map[string]any{"id": tpl.ID, "first": 1}), "templateLog")
	if page1.TotalCount != 2 || len(page1.Edges) != 1 || page1.Edges[0].Node.Action != "INCREASE_STOCK" || !page1.PageInfo.HasNextPage {
		t.Fatalf("page 1: %+v", page1)
	}
	page2 := field[templateLogJSON](t, e.do(e.token(shopA), templateLogQuery, map[string]any{"id": tpl.ID, "first": 1, "after": *page1.PageInfo.EndCursor}), "templateLog")
	if len(page2.Edges) != 1 || page2.Edges[0].Node.Action != "CREATE" || page2.PageInfo.HasNextPage {
		t.Fatalf("page 2: %+v", page2)
	}
	if r := e.do(e.token(shopA), templateLogQuery, map[string]any{"id": tpl.ID, "first": 101}); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("first 101: %+v", r)
	}
}
