package graph

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"
)

const createReminderMutation = `mutation($in: CreateReminderInput!) {
  createReminder(input: $in) {
    reminder { templateId channel minutesBefore remindAt status sentAt failureReason }
    userErrors { code field message }
  }
}`

type reminderPayloadJSON struct {
	Reminder *struct {
		TemplateID    string `json:"templateId"`
		Channel       string `json:"channel"`
		MinutesBefore int    `json:"minutesBefore"`
		RemindAt      string `json:"remindAt"`
		Status        string `json:"status"`
	} `json:"reminder"`
	UserErrors []struct {
		Code  string   `json:"code"`
		Field []string `json:"field"`
	} `json:"userErrors"`
}

// upcomingTemplate creates a template of shopA whose window opens in opensIn.
func (e *env) upcomingTemplate(opensIn time.Duration) *templateJSON {
	e.t.Helper()
	in := validInput()
	in["validStartTime"] = time.Now().Add(opensIn).UTC().Format(time.RFC3339)
	p := field[payloadJSON](e.t, e.do(e.token(shopA), createMutation, map[string]any{"in": in}), "createCouponTemplate")
	if p.Template == nil {
		e.t.Fatalf("create: %+v", p)
	}
	return p.Template
}

// 200 concurrent createReminder calls over HTTP for one (user, template, channel): each answers
// the reminder, and the database holds one row.
func TestConcurrentCreateReminderOverGraphQL(t *testing.T) {
	e := newEnv(t, "reminder_race")
	tpl := e.upcomingTemplate(3 * time.Hour)
	tok := e.token(user)
	body, _ := json.Marshal(map[string]any{"query": createReminderMutation, "variables": map[string]any{
		"in": map[string]any{"templateId": tpl.ID, "channel": "APP", "minutesBefore": 15}}})
	const calls = 200
	answers := make([]string, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, e.srv.URL, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				answers[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			var out gqlResponse
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Errors) > 0 {
				answers[i] = "bad answer"
				return
			}
			var p reminderPayloadJSON
			if json.Unmarshal(out.Data["createReminder"], &p) != nil || p.Reminder == nil || len(p.UserErrors) > 0 {
				answers[i] = "refused: " + string(out.Data["createReminder"])
				return
			}
			answers[i] = p.Reminder.Status + " " + p.Reminder.RemindAt
		}()
	}
	wg.Wait()
	for i, a := range answers {
		if a != answers[0] || len(a) < 8 || a[:8] != "PENDING " {
			t.Fatalf("call %d answered %q, call 0 %q", i, a, answers[0])
		}
	}
	var n int
	if err := e.sqlDB.QueryRow("SELECT COUNT(*) FROM coupon_reminder").Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d reminder rows (%v), want 1", n, err)
	}
}

func TestReminderRefusalsOverGraphQL(t *testing.T) {
	e := newEnv(t, "reminder_refusals")
	tpl := e.upcomingTemplate(time.Hour)
	open := e.create(shopA)
	create := func(tok, templateID string, minutes int) *gqlResponse {
		return e.do(tok, createReminderMutation, map[string]any{"in": map[string]any{"templateId": templateID, "channel": "EMAIL", "minutesBefore": minutes}})
	}
	// Roles: a merchant or an anonymous caller may not.
	if r := create(e.token(shopA), tpl.ID, 10); r.code() != "FORBIDDEN" {
		t.Fatalf("merchant: %+v", r)
	}
	if r := create("", tpl.ID, 10); r.code() != "UNAUTHENTICATED" {
		t.Fatalf("anonymous: %+v", r)
	}
	if r := create(e.token(user), "not-an-id", 10); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("malformed id: %+v", r)
	}
	for _, c := range []struct {
		template string
		minutes  int
		code     string
		field    string
	}{
		{tpl.ID, 0, "INVALID_INPUT", "minutesBefore"},
		{tpl.ID, 10081, "INVALID_INPUT", "minutesBefore"},
		{tpl.ID, 61, "INVALID_INPUT", "minutesBefore"}, // due before now
		{"123456789", 10, "NOT_FOUND", "templateId"},
		{open.ID, 10, "INVALID_STATE", ""},
	} {
		p := field[reminderPayloadJSON](t, create(e.token(user), c.template, c.minutes), "createReminder")
		if p.Reminder != nil || len(p.UserErrors) != 1 || p.UserErrors[0].Code != c.code ||
			(c.field != "" && (len(p.UserErrors[0].Field) != 2 || p.UserErrors[0].Field[1] != c.field)) {
			t.Errorf("%+v: got %+v", c, p)
		}
	}
	// Cancel: NOT_FOUND before, idempotent after; myReminders lists it.
	cancel := `mutation($in: CancelReminderInput!) { cancelReminder(input: $in) { reminder { status } userErrors { code } } }`
	in := map[string]any{"in": map[string]any{"templateId": tpl.ID, "channel": "EMAIL"}}
	if p := field[reminderPayloadJSON](t, e.do(e.token(user), cancel, in), "cancelReminder"); len(p.UserErrors) != 1 || p.UserErrors[0].Code != "NOT_FOUND" {
		t.Fatalf("cancel of none: %+v", p)
	}
	if p := field[reminderPayloadJSON](t, create(e.token(user), tpl.ID, 10), "createReminder"); p.Reminder == nil || p.Reminder.Status != "PENDING" {
		t.Fatalf("create: %+v", p)
	}
	for range 2 {
		if p := field[reminderPayloadJSON](t, e.do(e.token(user), cancel, in), "cancelReminder"); p.Reminder == nil || p.Reminder.Status != "CANCELED" {
			t.Fatalf("cancel: %+v", p)
		}
	}
	list := `query($after: String) { myReminders(first: 1, after: $after) { totalCount edges { cursor node { templateId status minutesBefore } } pageInfo { hasNextPage endCursor } } }`
	type conn struct {
		TotalCount int `json:"totalCount"`
		Edges      []struct {
			Node struct {
				TemplateID string `json:"templateId"`
				Status     string `json:"status"`
			} `json:"node"`
		} `json:"edges"`
		PageInfo struct {
			HasNextPage bool    `json:"hasNextPage"`
			EndCursor   *string `json:"endCursor"`
		} `json:"pageInfo"`
	}
	c := field[conn](t, e.do(e.token(user), list, nil), "myReminders")
	if c.TotalCount != 1 || len(c.Edges) != 1 || c.Edges[0].Node.TemplateID != tpl.ID || c.Edges[0].Node.Status != "CANCELED" || c.PageInfo.HasNextPage {
		t.Fatalf("myReminders %+v", c)
	}
	if r := e.do(e.token(user), list, map[string]any{"after": "garbage"}); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("foreign cursor: %+v", r)
	}
	if r := e.do(e.token(shopA), list, nil); r.code() != "FORBIDDEN" {
		t.Fatalf("merchant lists reminders: %+v", r)
	}
}
