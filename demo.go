package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"coupond/admin"
	"coupond/coupon"
	"coupond/coupon/template"
	"coupond/ent/coupontemplate"

	"github.com/shopspring/decimal"
)

// Demo identities printed by `serve --demo`.
var (
	demoMerchant = coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}
	demoUser     = coupon.Actor{UserID: 10001, Role: coupon.RoleUser}
	demoPlatform = coupon.Actor{UserID: 9000, Role: coupon.RolePlatform}
	demoOrders   = coupon.Actor{Role: coupon.RoleService, Service: "orders"} // confirms payments and refunds
)

const demoTemplateName = "Demo: 10.00 off orders from 100.00"

// seedDemo makes sure shop 1001 has an active demo template and prints tokens to try the API,
// and the web admin's sign-in URLs of the demo merchant and platform.
func (a *app) seedDemo(ctx context.Context) error {
	page, err := a.svc.Templates.List(ctx, demoMerchant, template.Filter{
		NameContains: ptr(demoTemplateName), Status: ptr(coupon.StatusActive),
	}, coupon.Keyset{Size: 1})
	if err != nil {
		return err
	}
	var t *coupon.Template
	if len(page.Items) > 0 {
		t = page.Items[0]
	} else {
		now := time.Now().UTC()
		t, err = a.svc.Templates.Create(ctx, demoMerchant, template.CreateInput{
			Name: demoTemplateName, Source: coupontemplate.SourceSHOP, Target: coupontemplate.TargetSHOP_WIDE,
			Type: coupontemplate.TypeTHRESHOLD_OFF, ValidStartTime: now, ValidEndTime: now.AddDate(0, 1, 0),
			Stock: 1000, LimitPerPerson: 2,
			ThresholdAmount: ptr(decimal.NewFromInt(100)), DiscountAmount: ptr(decimal.NewFromInt(10)),
		})
		if err != nil {
			return err
		}
	}
	fmt.Printf("\n== coupond demo ==\nplayground: %s/\ndemo template id: %d (shop %d)\n\n",
		localURL(a.cfg.HTTPAddr), t.ID, t.ShopNumber)
	for _, d := range []struct {
		name  string
		actor coupon.Actor
	}{{"USER", demoUser}, {"MERCHANT (shop 1001)", demoMerchant}, {"PLATFORM", demoPlatform},
		{"SERVICE (the order system: confirmCouponPayment, refundCoupon)", demoOrders}} {
		tok, err := a.signer.Issue(d.actor, a.cfg.JWTMaxTTL)
		if err != nil {
			return err
		}
		fmt.Printf("%s token:\n  %s\n  HTTP header: {\"Authorization\": \"Bearer %s\"}\n\n", d.name, tok, tok)
		if d.actor == demoMerchant || d.actor == demoPlatform {
			fmt.Printf("  web admin: %s\n\n", adminURL(localURL(a.cfg.HTTPAddr), tok))
		}
	}
	fmt.Printf("monitoring: %s/monitoring (user %q, password from COUPON_MONITOR_PASSWORD)\n\n",
		localURL(a.cfg.HTTPAddr), a.cfg.MonitorUser)
	return nil
}

func ptr[T any](v T) *T { return &v }

// adminURL is the web admin's URL at base that signs in with token (the app reads it from the
// fragment, which the browser does not send, and removes it from the address bar).
func adminURL(base, token string) string {
	return base + admin.Prefix + "#token=" + url.QueryEscape(token)
}

// localURL is the base URL of the listen address addr as a local browser reaches it.
func localURL(addr string) string {
	if strings.HasPrefix(addr, ":") {
		return "http://localhost" + addr
	}
	return "http://" + addr
}
