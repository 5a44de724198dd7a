package graph

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/distribution"
	"coupond/coupon/keys"
	"coupond/ent/couponsettlement"
	"coupond/ent/coupontask"
	"coupond/ent/usercoupon"
	"coupond/graph/scalar"

	"github.com/golang-jwt/jwt/v5"
)

// orders is the order system's actor: the SERVICE that confirms payments and refunds.
var orders = coupon.Actor{Role: coupon.RoleService, Service: "orders"}

const (
	lockOp = `mutation($c: ID!, $o: ID!) { lockCoupon(input: {couponId: $c, order: {orderId: $o, shopNumber: "1001", amount: "150.00"}}) {
	  settlement { status } userErrors { code } } }`
	confirmOp = `mutation($c: ID!, $o: ID!, $a: Decimal!) { confirmCouponPayment(input: {couponId: $c, orderId: $o, orderAmount: $a}) {
	  settlement { status } userErrors { code field } } }`
	releaseOp = `mutation($c: ID!, $o: ID!) { releaseCoupon(input: {couponId: $c, orderId: $o}) { settlement { status } userErrors { code } } }`
	refundOp  = `mutation($c: ID!, $o: ID!) { refundCoupon(input: {couponId: $c, orderId: $o}) { settlement { status } userErrors { code } } }`
)

// settled is a settlement mutation's answer: the settlement's status, or the userError's code.
type settled struct {
	Settlement *struct {
		Status string `json:"status"`
	} `json:"settlement"`
	UserErrors []struct {
		Code  string   `json:"code"`
		Field []string `json:"field"`
	} `json:"userErrors"`
}

// outcome is the settlement's status, the first userError's code, or the top-level error's code.
func (e *env) settle(token, op, field, couponID, orderID string, extra ...string) string {
	e.t.Helper()
	vars := map[string]any{"c": couponID, "o": orderID}
	if len(extra) > 0 {
		vars["a"] = extra[0]
	}
	r := e.do(token, op, vars)
	if c := r.code(); c != "" {
		return c
	}
	var s settled
	if err := json.Unmarshal(r.Data[field], &s); err != nil {
		e.t.Errorf("%s: %v (%+v)", field, err, r)
		return "?"
	}
	if s.Settlement != nil {
		return s.Settlement.Status
	}
	if len(s.UserErrors) == 0 {
		e.t.Errorf("%s: no settlement and no userErrors", field)
		return "?"
	}
	return s.UserErrors[0].Code
}

// claimOne has user claim a coupon of a new template of shopA (THRESHOLD_OFF 100 → 7, RETURN on
// refund) and returns the template's and the coupon's ids.
func (e *env) claimOne(a coupon.Actor) (tplID, couponID string) {
	e.t.Helper()
	tpl := e.create(shopA)
	redeem := `mutation($id: ID!) { redeemCoupon(input: {templateId: $id}) { redemption { coupon { id } } userErrors { code } } }`
	r := field[struct {
		Redemption struct {
			Coupon struct{ ID string } `json:"coupon"`
		} `json:"redemption"`
	}](e.t, e.do(e.token(a), redeem, map[string]any{"id": tpl.ID}), "redeemCoupon")
	if r.Redemption.Coupon.ID == "" {
		e.t.Fatal("no coupon claimed")
	}
	return tpl.ID, r.Redemption.Coupon.ID
}

// dailyCount is one of the template's realtime counters of today (payments, refunds).
func (e *env) dailyCount(tplID, stat string) string {
	id, err := scalar.ParseID(tplID)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.stack.Redis.HGet(e.stack.Ctx, keys.DailyStats(id, keys.StatsDay(time.Now())), stat).Val()
}

// Issue 18 row 1: a user ran lock → confirm → refund → lock again five times on one coupon. Now
// confirm and refund are FORBIDDEN to a USER: the coupon stays locked for the first order, no
// payment or refund is counted, and once the order system pays it the coupon is spent for good.
func TestAUserCannotPayOrRefundItsOwnOrders(t *testing.T) {
	e := newEnv(t, "trust_user")
	tplID, c := e.claimOne(user)
	tok := e.token(user)
	for i := range 5 {
		o := string(rune('1'+i)) + "001"
		want := "LOCKED"
		if i > 0 {
			want = "ALREADY_LOCKED" // the first order still holds it
		}
		if got := e.settle(tok, lockOp, "lockCoupon", c, o); got != want {
			t.Fatalf("round %d: lock %s, want %s", i, got, want)
		}
		if got := e.settle(tok, confirmOp, "confirmCouponPayment", c, o, "150.00"); got != "FORBIDDEN" {
			t.Fatalf("round %d: the user's confirm answered %s", i, got)
		}
		if got := e.settle(tok, refundOp, "refundCoupon", c, o); got != "FORBIDDEN" {
			t.Fatalf("round %d: the user's refund answered %s", i, got)
		}
	}
	if used, refunded := e.dailyCount(tplID, keys.StatUsed), e.dailyCount(tplID, keys.StatRefunded); used != "" || refunded != "" {
		t.Fatalf("counted %q payments and %q refunds of a coupon nobody paid", used, refunded)
	}
	svc := e.token(orders)
	if got := e.settle(svc, confirmOp, "confirmCouponPayment", c, "1001", "150.00"); got != "PAID" {
		t.Fatalf("the order system's confirm: %s", got)
	}
	if got := e.settle(tok, lockOp, "lockCoupon", c, "9001"); got != "INVALID_STATE" {
		t.Fatalf("lock of the spent coupon: %s", got)
	}
	if got := e.settle(tok, releaseOp, "releaseCoupon", c, "1001"); got != "INVALID_STATE" {
		t.Fatalf("release of the paid order: %s", got)
	}
	if used := e.dailyCount(tplID, keys.StatUsed); used != "1" {
		t.Fatalf("payments counted: %q, want 1", used)
	}
}

// The order system confirms with the amount it charged: another amount is AMOUNT_MISMATCH on
// orderAmount and the settlement stays LOCKED; it may lock and release a user's coupon itself; a
// merchant or the platform may not settle at all.
func TestTheOrderSystemSettlesWithTheChargedAmount(t *testing.T) {
	e := newEnv(t, "trust_amount")
	_, c := e.claimOne(user)
	svc := e.token(orders)
	if got := e.settle(svc, lockOp, "lockCoupon", c, "1"); got != "LOCKED" {
		t.Fatalf("the order system locks the user's coupon: %s", got)
	}
	r := field[settled](t, e.do(svc, confirmOp, map[string]any{"c": c, "o": "1", "a": "149.99"}), "confirmCouponPayment")
	if r.Settlement != nil || len(r.UserErrors) != 1 || r.UserErrors[0].Code != "AMOUNT_MISMATCH" || strings.Join(r.UserErrors[0].Field, ".") != "input.orderAmount" {
		t.Fatalf("confirm of another amount: %+v", r)
	}
	row, err := e.db.CouponSettlement.Query().Where(couponsettlement.OrderID(1)).Only(e.stack.Ctx)
	if err != nil || row.Status != couponsettlement.StatusLOCKED {
		t.Fatalf("settlement after the mismatch: %+v, %v", row, err)
	}
	for _, a := range []coupon.Actor{shopA, {UserID: 9, Role: coupon.RolePlatform}} {
		for _, op := range []string{lockOp, releaseOp, refundOp} {
			if got := e.settle(e.token(a), op, "x", c, "1"); got != "FORBIDDEN" {
				t.Fatalf("%s: %s", a.Role, got)
			}
		}
	}
	if got := e.settle(svc, releaseOp, "releaseCoupon", c, "1"); got != "CANCELED" {
		t.Fatalf("the order system releases: %s", got)
	}
	if got := e.settle(svc, lockOp, "lockCoupon", "123456789", "1"); got != "NOT_FOUND" {
		t.Fatalf("a coupon nobody holds: %s", got)
	}
}

// SERVICE confirmations and refunds racing on one coupon keep the books: in every round the
// user locks an order and 30 calls race — confirms of the right amount and of a wrong one,
// refunds, and a rival order's lock and confirm — and after each round the coupon is in at most
// one PAID settlement; at the end every payment was counted once and refunded at most once, and
// the coupon is spendable exactly once more.
func TestServiceSettlementsRacingKeepTheBooks(t *testing.T) {
	e := newEnv(t, "trust_race")
	tplID, c := e.claimOne(user)
	cid, _ := scalar.ParseID(c)
	svc, tok := e.token(orders), e.token(user)
	legal := map[string]bool{"LOCKED": true, "PAID": true, "REFUNDED": true, "CANCELED": true,
		"INVALID_STATE": true, "AMOUNT_MISMATCH": true, "ALREADY_LOCKED": true, "NOT_FOUND": true}
	const rounds = 5
	for r := range rounds {
		o, rival := string(rune('1'+r))+"00", string(rune('1'+r))+"99"
		if got := e.settle(tok, lockOp, "lockCoupon", c, o); got != "LOCKED" {
			t.Fatalf("round %d: lock %s", r, got)
		}
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				var got string
				switch i % 5 {
				case 0:
					got = e.settle(svc, confirmOp, "confirmCouponPayment", c, o, "150.00")
				case 1:
					got = e.settle(svc, confirmOp, "confirmCouponPayment", c, o, "150.01")
				case 2:
					got = e.settle(svc, refundOp, "refundCoupon", c, o)
				case 3:
					got = e.settle(svc, lockOp, "lockCoupon", c, rival)
				case 4:
					got = e.settle(svc, confirmOp, "confirmCouponPayment", c, rival, "150.00")
				}
				if !legal[got] {
					t.Errorf("round %d call %d: %s", r, i, got)
				}
			})
		}
		wg.Wait()
		rows := e.db.CouponSettlement.Query().Where(couponsettlement.UserID(user.UserID), couponsettlement.CouponID(cid)).AllX(e.stack.Ctx)
		paid := 0
		for _, s := range rows {
			switch s.Status {
			case couponsettlement.StatusPAID:
				paid++
				e.settle(svc, refundOp, "refundCoupon", c, itoa(s.OrderID)) // end the round refunded
			case couponsettlement.StatusLOCKED:
				e.settle(svc, releaseOp, "releaseCoupon", c, itoa(s.OrderID))
			}
		}
		if paid > 1 {
			t.Fatalf("round %d: the coupon is in %d PAID orders", r, paid)
		}
	}
	rows := e.db.CouponSettlement.Query().Where(couponsettlement.UserID(user.UserID), couponsettlement.CouponID(cid)).AllX(e.stack.Ctx)
	payments := 0
	for _, s := range rows {
		switch {
		case s.Status == couponsettlement.StatusREFUNDED && s.PaidAt != nil && s.RefundedAt != nil:
			payments++
		case s.Status == couponsettlement.StatusCANCELED && s.PaidAt == nil:
		default:
			t.Errorf("settlement of order %d: %s paid %v refunded %v", s.OrderID, s.Status, s.PaidAt, s.RefundedAt)
		}
	}
	if payments < rounds {
		t.Fatalf("%d payments in %d rounds (each round's own order is confirmed)", payments, rounds)
	}
	// Stats are net: each refund took its payment out of the day's used count.
	if used, refunded := e.dailyCount(tplID, keys.StatUsed), e.dailyCount(tplID, keys.StatRefunded); used != "0" || refunded != itoa(int64(payments)) {
		t.Fatalf("counted %s net payments and %s refunds; the settlements hold %d refunded payments (want 0 net)", used, refunded, payments)
	}
	uc := e.db.UserCoupon.Query().Where(usercoupon.ID(cid)).OnlyX(e.stack.Ctx)
	if uc.Status != usercoupon.StatusUNUSED {
		t.Fatalf("coupon %s after every payment was refunded", uc.Status)
	}
	if e.settle(tok, lockOp, "lockCoupon", c, "7") != "LOCKED" || e.settle(svc, confirmOp, "confirmCouponPayment", c, "7", "150") != "PAID" ||
		e.settle(tok, lockOp, "lockCoupon", c, "8") != "INVALID_STATE" {
		t.Fatal("the coupon is not spendable exactly once more")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Issue 18 row 2: a PLATFORM token with a shop claim created a PLATFORM template filed under that
// shop, whose merchant then restocked and ended it. Now a platform template has no shop, no
// merchant sees, changes or distributes it (NOT_FOUND, as a missing template), and the platform
// restocks and ends it and reads every shop's tasks.
func TestPlatformTemplatesBelongToNoShop(t *testing.T) {
	e := newEnv(t, "trust_platform")
	platform := coupon.Actor{UserID: 9, Role: coupon.RolePlatform}
	claims := map[string]any{"sub": "9", "role": "PLATFORM", "shop": "1001", "exp": time.Now().Add(time.Hour).Unix()}
	withShop := e.signClaims(claims)
	in := validInput()
	in["source"] = "PLATFORM"
	p := field[payloadJSON](t, e.do(withShop, createMutation, map[string]any{"in": in}), "createCouponTemplate")
	if p.Template == nil || len(p.UserErrors) > 0 {
		t.Fatalf("platform create: %+v", p)
	}
	id := p.Template.ID
	if r := e.do(withShop, `query($id: ID!) { couponTemplate(id: $id) { shopNumber } }`, map[string]any{"id": id}); string(r.Data["couponTemplate"]) != `{"shopNumber":null}` {
		t.Fatalf("the platform template's shop: %s", r.Data["couponTemplate"])
	}
	inc := `mutation($id: ID!) { increaseCouponTemplateStock(input: {templateId: $id, amount: 5}) { template { stock status } userErrors { code } } }`
	end := `mutation($id: ID!) { terminateCouponTemplate(input: {templateId: $id}) { template { stock status } userErrors { code } } }`
	for _, q := range []string{inc, end} {
		for _, m := range []coupon.Actor{shopA, shopB} {
			if r := e.do(e.token(m), q, map[string]any{"id": id}); !strings.Contains(string(rawData(r)), `"userErrors":[{"code":"NOT_FOUND"}]`) {
				t.Fatalf("merchant %d changed the platform template: %s %+v", m.Shop, rawData(r), r.Errors)
			}
		}
	}
	status, out := e.uploadTask(e.token(shopA), id)
	if status != 200 || !strings.Contains(out, `"code":"NOT_FOUND"`) {
		t.Fatalf("merchant distributes the platform template: %d %s", status, out)
	}
	if r := e.do(e.token(platform), inc, map[string]any{"id": id}); !strings.Contains(string(rawData(r)), `"template":{"stock":105,"status":"ACTIVE"}`) {
		t.Fatalf("platform restock: %s %+v", rawData(r), r.Errors)
	}
	if r := e.do(e.token(platform), end, map[string]any{"id": id}); !strings.Contains(string(rawData(r)), `"status":"ENDED"`) {
		t.Fatalf("platform terminate: %s %+v", rawData(r), r.Errors)
	}
	// The platform also ends a shop's template, and reads every shop's tasks.
	shopTpl := e.create(shopA)
	task := e.task(shopA, shopTpl.ID)
	tasks := `query($shop: String) { couponTasks(shopNumber: $shop) { totalCount edges { node { id } } } }`
	for shop, want := range map[string]string{"1001": `{"couponTasks":{"totalCount":1,"edges":[{"node":{"id":"` + task + `"}}]}}`, "2002": `{"couponTasks":{"totalCount":0,"edges":[]}}`} {
		if r := e.do(e.token(platform), tasks, map[string]any{"shop": shop}); string(rawData(r)) != want {
			t.Fatalf("platform's couponTasks(shopNumber: %s) = %s %+v", shop, rawData(r), r.Errors)
		}
	}
	if r := e.do(e.token(platform), `query($id: ID!) { couponTask(id: $id) { id } }`, map[string]any{"id": task}); string(r.Data["couponTask"]) != `{"id":"`+task+`"}` {
		t.Fatalf("platform's couponTask: %s %+v", r.Data["couponTask"], r.Errors)
	}
	if r := e.do(e.token(platform), `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": task}); string(r.Data["node"]) != `{"id":"`+task+`"}` {
		t.Fatalf("platform's node(task): %s %+v", r.Data["node"], r.Errors)
	}
	if r := e.do(e.token(shopB), tasks, map[string]any{"shop": "1001"}); string(rawData(r)) != `{"couponTasks":{"totalCount":0,"edges":[]}}` {
		t.Fatalf("another merchant's couponTasks(shopNumber: 1001) = %s", rawData(r))
	}
	if r := e.do(e.token(platform), end, map[string]any{"id": shopTpl.ID}); !strings.Contains(string(rawData(r)), `"status":"ENDED"`) {
		t.Fatalf("platform ends a shop's template: %s %+v", rawData(r), r.Errors)
	}
}

// Issue 18 point 3: every operation that names a template, task or report answers a merchant
// naming another shop's object — or a PLATFORM template, even one a PLATFORM token carrying the
// merchant's shop created — exactly as it answers a missing id (templateStats and shopStats:
// coupon/stats' tests).
func TestAnotherShopsObjectIsAMissingOne(t *testing.T) {
	e := newEnv(t, "trust_missing")
	tpl := e.create(shopA)
	task := e.task(shopA, tpl.ID)
	in := validInput()
	in["source"] = "PLATFORM"
	// A PLATFORM token whose shop claim names the asking merchant's shop: the template is still nobody's.
	withShop := e.signClaims(map[string]any{"sub": "9", "role": "PLATFORM", "shop": "2002", "exp": time.Now().Add(time.Hour).Unix()})
	platformTpl := field[payloadJSON](t, e.do(withShop, createMutation, map[string]any{"in": in}), "createCouponTemplate").Template.ID
	const missing = "4242424242"
	tok := e.token(shopB)
	report := httptest.NewServer(e.signer.Middleware(ReportHandler(e.stack.Distribution)))
	t.Cleanup(report.Close)

	templateOps := map[string]string{
		"reconciliation":              reconciliationQuery,
		"templateLog":                 templateLogQuery,
		"couponTemplate":              `query($id: ID!) { couponTemplate(id: $id) { id } }`,
		"node":                        `query($id: ID!) { node(id: $id) { id } }`,
		"increaseCouponTemplateStock": `mutation($id: ID!) { increaseCouponTemplateStock(input: {templateId: $id, amount: 5}) { template { id } userErrors { code field message } } }`,
		"terminateCouponTemplate":     `mutation($id: ID!) { terminateCouponTemplate(input: {templateId: $id}) { template { id } userErrors { code field message } } }`,
	}
	taskOps := map[string]string{
		"couponTask":       `query($id: ID!) { couponTask(id: $id) { id failureReportUrl } }`,
		"node":             `query($id: ID!) { node(id: $id) { id } }`,
		"cancelCouponTask": `mutation($id: ID!) { cancelCouponTask(input: {taskId: $id}) { task { id } userErrors { code field message } } }`,
	}
	answer := func(q, id string) string {
		return e.post("application/json", "", mustJSON(map[string]any{"query": q, "variables": map[string]any{"id": id}}), tok).raw
	}
	for name, q := range templateOps {
		want := answer(q, missing)
		for _, id := range []string{tpl.ID, platformTpl} {
			if got := answer(q, id); got != want {
				t.Errorf("%s of another shop's or a platform template:\n  %s\nof a missing one:\n  %s", name, got, want)
			}
		}
	}
	for name, q := range taskOps {
		if got, want := answer(q, task), answer(q, missing); got != want {
			t.Errorf("%s of another shop's task:\n  %s\nof a missing one:\n  %s", name, got, want)
		}
	}
	for _, id := range []string{tpl.ID, platformTpl} {
		gs, got := e.uploadTask(tok, id)
		ws, want := e.uploadTask(tok, missing)
		if gs != ws || got != want || !strings.Contains(want, "NOT_FOUND") {
			t.Errorf("createCouponTask of another shop's or a platform template: %d %s; of a missing one: %d %s", gs, got, ws, want)
		}
	}
	get := func(id string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, report.URL+"/tasks/"+id+"/failures.xlsx", nil)
		req.SetPathValue("id", id)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	gs, got := get(task)
	ws, want := get(missing)
	if gs != http.StatusNotFound || gs != ws || got != want {
		t.Errorf("the failure report of another shop's task: %d %q; of a missing one: %d %q", gs, got, ws, want)
	}
	// The owner still gets its objects (the walk above is not vacuous).
	if r := e.do(e.token(shopA), taskOps["couponTask"], map[string]any{"id": task}); string(r.Data["couponTask"]) == "null" {
		t.Fatal("the owner does not see its task")
	}
}

// viewer: null without a token; otherwise the token's role, subject, shop (merchants only) and
// expiry, and the server's settings.
func TestViewer(t *testing.T) {
	e := newEnv(t, "trust_viewer")
	q := `{ viewer { role userId shopNumber expiresAt settings { statsTimeZone statsMaxDays uploadMaxBytes redeemMode } } }`
	if r := e.do("", q, nil); len(r.Errors) > 0 || string(r.Data["viewer"]) != "null" {
		t.Fatalf("anonymous viewer: %s %+v", r.Data["viewer"], r.Errors)
	}
	if r := e.post("application/json", "", mustJSON(map[string]any{"query": q}), "not-a-token"); r.body.code() != "UNAUTHENTICATED" {
		t.Fatalf("a bad token: %s", r.raw)
	}
	type viewerJSON struct {
		Role       string  `json:"role"`
		UserID     string  `json:"userId"`
		ShopNumber *string `json:"shopNumber"`
		ExpiresAt  string  `json:"expiresAt"`
		Settings   struct {
			StatsTimeZone  string `json:"statsTimeZone"`
			StatsMaxDays   int    `json:"statsMaxDays"`
			UploadMaxBytes int    `json:"uploadMaxBytes"`
			RedeemMode     string `json:"redeemMode"`
		} `json:"settings"`
	}
	for _, c := range []struct {
		actor      coupon.Actor
		role, user string
		shop       string
	}{
		{user, "USER", "77", ""}, {shopA, "MERCHANT", "1", "1001"},
		{coupon.Actor{UserID: 9, Role: coupon.RolePlatform}, "PLATFORM", "9", ""}, {orders, "SERVICE", "orders", ""},
	} {
		tok, err := e.signer.Issue(c.actor, 30*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		v := field[viewerJSON](t, e.do(tok, q, nil), "viewer")
		exp, err := time.Parse(time.RFC3339, v.ExpiresAt)
		if v.Role != c.role || v.UserID != c.user || (v.ShopNumber == nil) != (c.shop == "") || (v.ShopNumber != nil && *v.ShopNumber != c.shop) ||
			err != nil || time.Until(exp) < 29*time.Minute || time.Until(exp) > 31*time.Minute {
			t.Errorf("%s: %+v", c.role, v)
		}
		if s := v.Settings; s.StatsTimeZone != testSettings.StatsTimeZone || s.StatsMaxDays != testSettings.StatsMaxDays ||
			s.UploadMaxBytes != testSettings.UploadMaxBytes || s.RedeemMode != testSettings.RedeemMode {
			t.Errorf("%s: settings %+v", c.role, s)
		}
	}
}

// signClaims signs arbitrary claims with the test secret (tokens coupond would not issue).
func (e *env) signClaims(claims map[string]any) string {
	e.t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims(claims)).SignedString([]byte(testSecret))
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// task creates a PENDING distribution task of one of merchant's templates and returns its id.
func (e *env) task(merchant coupon.Actor, templateID string) string {
	e.t.Helper()
	id, _ := scalar.ParseID(templateID)
	tk, err := e.stack.Distribution.Create(e.stack.Ctx, merchant, distribution.CreateInput{TemplateID: id, Name: "push",
		SendType: coupontask.SendTypeSCHEDULED, SendTime: ptrTo(time.Now().Add(time.Hour)), FileName: "u.csv", File: strings.NewReader("userId\n5\n")})
	if err != nil {
		e.t.Fatal(err)
	}
	return itoa(tk.ID)
}

// uploadTask posts createCouponTask (multipart, one CSV row) for templateID and returns the
// status and the raw answer.
func (e *env) uploadTask(token, templateID string) (int, string) {
	e.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	ops := mustJSON(map[string]any{"query": `mutation($in: CreateCouponTaskInput!) { createCouponTask(input: $in) { task { id } userErrors { code field message } } }`,
		"variables": map[string]any{"in": map[string]any{"templateId": templateID, "name": "push", "sendType": "IMMEDIATE", "file": nil}}})
	_ = mw.WriteField("operations", ops)
	_ = mw.WriteField("map", `{"0": ["variables.in.file"]}`)
	fw, _ := mw.CreateFormFile("0", "u.csv")
	_, _ = fw.Write([]byte("userId\n5\n"))
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Apollo-Require-Preflight", "true")
	req.Header.Set("Authorization", "Bearer "+token)
	r := e.send(req)
	return r.status, r.raw
}

// rawData is the answer's data as JSON.
func rawData(r *gqlResponse) []byte {
	b, _ := json.Marshal(r.Data)
	return b
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func ptrTo[T any](v T) *T { return &v }
