package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/distribution"
	"coupond/ent/coupontask"
	"coupond/ent/usercoupon"

	"github.com/coder/websocket"
)

// wsMessage is one graphql-transport-ws message from the server.
type wsMessage struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// wsRead returns the next message other than a ping, or the error that ended the socket.
func wsRead(ctx context.Context, c *websocket.Conn) (wsMessage, error) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return wsMessage{}, err
		}
		var m wsMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return m, err
		}
		if m.Type != "ping" {
			return m, nil
		}
	}
}

// wsSubscribe sends a subscribe message of id.
func wsSubscribe(t *testing.T, ctx context.Context, c *websocket.Conn, id, query string, vars map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}})
	if err := c.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

// wsAck reads the connection_ack.
func wsAck(t *testing.T, ctx context.Context, c *websocket.Conn) {
	t.Helper()
	if m, err := wsRead(ctx, c); err != nil || m.Type != "connection_ack" {
		t.Fatalf("ack: %+v %v", m, err)
	}
}

const progressSubscription = `subscription($id: ID!) { couponTaskProgress(id: $id) { status processedRows } }`

// pendingTask is a task of shopA's new template with n rows, not run yet.
func (e *env) pendingTask(n int) *distribution.Task {
	e.t.Helper()
	tpl := e.stack.Template(e.t, 1000, 1, nil)
	var csv bytes.Buffer
	csv.WriteString("userId\n")
	for i := range n {
		csv.WriteString(strconv.Itoa(900001+i) + "\n")
	}
	task, err := e.stack.Distribution.Create(context.Background(), shopA, distribution.CreateInput{TemplateID: tpl.ID,
		Name: "ws", SendType: coupontask.SendTypeIMMEDIATE, FileName: "users.csv", File: &csv})
	if err != nil {
		e.t.Fatal(err)
	}
	return task
}

// TestWebsocketClosesAtTokenExpiry: a socket whose token expires is closed with 4401 at exp with a
// subscription open, and what is sent at exp — a query and a redeemCoupon — is not answered and
// not run.
func TestWebsocketClosesAtTokenExpiry(t *testing.T) {
	e := newEnv(t, "wsexpiry")
	task := e.pendingTask(3)
	tok, err := e.signer.Issue(shopA, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	actor, err := e.signer.Parse(tok)
	if err != nil {
		t.Fatal(err)
	}
	exp := actor.Expires
	conn, ctx := e.dialWS(map[string]any{"Authorization": "Bearer " + tok})
	wsAck(t, ctx, conn)
	wsSubscribe(t, ctx, conn, "progress", progressSubscription, map[string]any{"id": strconv.FormatInt(task.ID, 10)})
	if m, err := wsRead(ctx, conn); err != nil || m.Type != "next" || !strings.Contains(string(m.Payload), "PENDING") {
		t.Fatalf("first push: %+v %v", m, err)
	}

	userTok, err := e.signer.Issue(user, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	userActor, _ := e.signer.Parse(userTok)
	userExp := userActor.Expires
	userConn, userCtx := e.dialWS(map[string]any{"Authorization": "Bearer " + userTok})
	wsAck(t, userCtx, userConn)
	tpl := e.stack.Template(t, 10, 1, nil)
	time.Sleep(time.Until(userExp))
	// Sent at exp: the close and these race, and neither may be answered.
	wsSubscribe(t, userCtx, userConn, "query", `{ myCoupons(first: 1) { totalCount } }`, nil)
	wsSubscribe(t, userCtx, userConn, "redeem", `mutation($id: ID!) { redeemCoupon(input: {templateId: $id}) { userErrors { code } } }`,
		map[string]any{"id": strconv.FormatInt(tpl.ID, 10)})
	for {
		m, err := wsRead(userCtx, userConn)
		if err != nil {
			if got := websocket.CloseStatus(err); got != wsCloseUnauthorized {
				t.Fatalf("the user's socket ended with %v (close %d), want 4401", err, got)
			}
			break
		}
		t.Fatalf("answered after exp: %+v", m)
	}
	if n := e.stack.DB.UserCoupon.Query().Where(usercoupon.UserID(user.UserID)).CountX(context.Background()); n != 0 {
		t.Fatalf("%d coupons redeemed after exp", n)
	}

	for {
		m, err := wsRead(ctx, conn)
		if err != nil {
			closedAt := time.Now()
			if got := websocket.CloseStatus(err); got != wsCloseUnauthorized {
				t.Fatalf("the subscribed socket ended with %v (close %d), want 4401", err, got)
			}
			if closedAt.Before(exp) || closedAt.After(exp.Add(2*time.Second)) {
				t.Fatalf("closed at %s, exp %s", closedAt.Format(time.StampMilli), exp.Format(time.StampMilli))
			}
			break
		}
		if m.Type != "next" {
			t.Fatalf("before the close: %+v", m)
		}
	}
}

// TestWebsocketWithoutInitClosedWith4408: a socket that sends nothing is closed with 4408 after
// 10 s.
func TestWebsocketWithoutInitClosedWith4408(t *testing.T) {
	e := newEnv(t, "wsinit")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	start := time.Now()
	conn, _, err := websocket.Dial(ctx, strings.Replace(e.srv.URL, "http", "ws", 1), &websocket.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	got := closeCode(ctx, conn)
	if took := time.Since(start); got != wsCloseInitTimeout || took < wsInitTimeout || took > wsInitTimeout+2*time.Second {
		t.Fatalf("closed with %d after %s, want 4408 after %s", got, took, wsInitTimeout)
	}
}

// TestWebsocketSubscriptionLimit: on one socket the 21st subscription is refused with
// RATE_LIMITED while the 20 open ones keep receiving to the end of the task; the socket stays
// and, once they completed, takes a new one.
func TestWebsocketSubscriptionLimit(t *testing.T) {
	e := newEnv(t, "wslimit")
	task := e.pendingTask(3)
	vars := map[string]any{"id": strconv.FormatInt(task.ID, 10)}
	conn, ctx := e.dialWS(map[string]any{"Authorization": "Bearer " + e.token(shopA)})
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	wsAck(t, ctx, conn)
	for i := range wsMaxSubscriptions {
		wsSubscribe(t, ctx, conn, strconv.Itoa(i), progressSubscription, vars)
	}
	firsts := map[string]bool{}
	for len(firsts) < wsMaxSubscriptions {
		m, err := wsRead(ctx, conn)
		if err != nil || m.Type != "next" {
			t.Fatalf("first pushes: %+v %v", m, err)
		}
		firsts[m.ID] = true
	}
	wsSubscribe(t, ctx, conn, "extra", progressSubscription, vars)
	m, err := wsRead(ctx, conn)
	var refused gqlResponse
	if err == nil {
		err = json.Unmarshal(m.Payload, &refused)
	}
	if err != nil || m.ID != "extra" || refused.code() != string(coupon.CodeRateLimited) {
		t.Fatalf("the 21st subscription: %+v %s %v", m, m.Payload, err)
	}

	if err := e.stack.Distribution.Run(context.Background(), task.ID); err != nil {
		t.Fatal(err)
	}
	ended, completed := map[string]bool{}, map[string]bool{}
	for len(completed) < wsMaxSubscriptions {
		m, err := wsRead(ctx, conn)
		if err != nil {
			t.Fatalf("after %d completes: %v", len(completed), err)
		}
		switch {
		case m.ID == "extra" && m.Type == "complete":
		case m.Type == "next" && strings.Contains(string(m.Payload), `"status":"SUCCESS"`):
			ended[m.ID] = true
		case m.Type == "complete":
			completed[m.ID] = true
		case m.Type != "next":
			t.Fatalf("unexpected %+v", m)
		}
	}
	if len(ended) != wsMaxSubscriptions {
		t.Fatalf("%d of %d subscriptions got SUCCESS", len(ended), wsMaxSubscriptions)
	}
	wsSubscribe(t, ctx, conn, "again", progressSubscription, vars)
	if m, err := wsRead(ctx, conn); err != nil || m.ID != "again" || !strings.Contains(string(m.Payload), "SUCCESS") {
		t.Fatalf("a subscription once the others completed: %+v %s %v", m, m.Payload, err)
	}
}

// TestWebsocketDropsAPeerThatAnswersNoPing: the server pings every 10 s and drops a peer that sent
// no pong 20 s after its connection_init.
func TestWebsocketDropsAPeerThatAnswersNoPing(t *testing.T) {
	e := newEnv(t, "wsping")
	conn, _ := e.dialWS(map[string]any{})
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*wsPingInterval)
	defer cancel()
	pings := 0
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			if took := time.Since(start); ctx.Err() != nil || took < 2*wsPingInterval-time.Second {
				t.Fatalf("socket ended after %s (%v), want about %s", took, err, 2*wsPingInterval)
			}
			break
		}
		if strings.Contains(string(b), `"type":"ping"`) {
			pings++
		}
	}
	if pings == 0 {
		t.Fatal("no ping before the socket was dropped")
	}
}
