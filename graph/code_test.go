package graph

import (
	"strconv"
	"testing"

	"coupond/coupon"
	"coupond/coupon/code"
	"coupond/graph/scalar"
)

// testCodes is the coupon codes' codec of newEnv's resolver.
var testCodes = code.New([]byte("graph-test-code-key"))

// A claimed coupon's code, as redeemCoupon answers it and as myCoupons lists it later, is the
// same 16 characters, distinct per coupon, and decodes under the server's key to the coupon's id
// (the lookup a code allows); under another key it decodes to nothing.
func TestCouponCodesRoundTripThroughTheAPI(t *testing.T) {
	e := newEnv(t, "codes")
	tpl := e.create(shopA)
	redeem := `mutation($id: ID!, $req: String!) { redeemCoupon(input: {templateId: $id, requestId: $req}) {
	  redemption { status coupon { id code } } userErrors { code } } }`
	type couponJSON struct {
		ID   string `json:"id"`
		Code string `json:"code"`
	}
	claimed := map[string]string{} // code → id
	users := []coupon.Actor{user, {UserID: 78, Role: coupon.RoleUser}, {UserID: 79, Role: coupon.RoleUser}}
	for i, u := range users {
		r := field[struct {
			Redemption *struct {
				Status string      `json:"status"`
				Coupon *couponJSON `json:"coupon"`
			} `json:"redemption"`
		}](t, e.do(e.token(u), redeem, map[string]any{"id": tpl.ID, "req": "code-" + strconv.Itoa(i)}), "redeemCoupon")
		if r.Redemption == nil || r.Redemption.Coupon == nil {
			t.Fatalf("claim of user %d: %+v", u.UserID, r)
		}
		c := r.Redemption.Coupon
		id, err := scalar.ParseID(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := testCodes.Decode(c.Code); err != nil || got != id {
			t.Fatalf("code %q of coupon %s decodes to %d, %v", c.Code, c.ID, got, err)
		}
		if _, err := code.New([]byte("another key")).Decode(c.Code); err == nil {
			t.Fatalf("code %q decodes under another key", c.Code)
		}
		if other, dup := claimed[c.Code]; dup {
			t.Fatalf("coupons %s and %s share the code %s", other, c.ID, c.Code)
		}
		claimed[c.Code] = c.ID

		listed := field[struct {
			Edges []struct {
				Node couponJSON `json:"node"`
			} `json:"edges"`
		}](t, e.do(e.token(u), `{ myCoupons(first: 10) { edges { node { id code } } } }`, nil), "myCoupons")
		if len(listed.Edges) != 1 || listed.Edges[0].Node != *c {
			t.Fatalf("myCoupons of user %d: %+v, want %+v", u.UserID, listed.Edges, *c)
		}
	}
}
