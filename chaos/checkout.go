package main

// Checkout scenarios: users hold coupons and lock, confirm, release and refund them on orders
// while one fault hits (kill -9 of coupond early and late in the burst — mid-lock and mid-confirm —,
// a kill inside a MariaDB stall, MariaDB stalls, client timeouts with retries). After the system
// is quiet (the short lock TTL has released every abandoned lock and the checkout's pending set is
// empty) the books say: no coupon LOCKED without its live LOCKED settlement, none USED without a
// PAID one, none UNUSED with a live settlement, at most one live settlement per coupon, and every
// answer a client got still true (PAID stays PAID or becomes REFUNDED only when asked, CANCELED
// and REFUNDED stay).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	checkoutUsersFull, checkoutUsersShort = 150, 60
	checkoutCouponsPerUser                = 2
	checkoutConcurrency                   = 32
	checkoutLockTTL                       = 3 * time.Second
	checkoutQuietMax                      = 60 * time.Second
)

func init() {
	scenarios = append(scenarios,
		scenario{name: "checkout-kill-coupond-early", mode: "sync", retry: true, checkout: true, fault: killServer(0.25, 300*time.Millisecond)},
		scenario{name: "checkout-kill-coupond-late", mode: "sync", retry: true, checkout: true, fault: killServer(0.7, 300*time.Millisecond)},
		scenario{name: "checkout-kill-in-stall", mode: "sync", retry: true, checkout: true, fault: killServerInStall(0.5, 600*time.Millisecond)},
		scenario{name: "checkout-stall-mariadb", mode: "sync", retry: true, checkout: true, fault: stallMariaDB(0.3, stalls...)},
		scenario{name: "checkout-timeouts", mode: "sync", retry: true, checkout: true, timeoutMin: 20 * time.Millisecond, timeoutMax: 60 * time.Millisecond, fault: noFault},
	)
}

// checkoutBooks is what a checkout scenario found.
type checkoutBooks struct {
	ops, answered, noAnswer int
	retries                 int            // attempts after one without an answer (timeout, error)
	refusals                map[string]int // "<op> <code>" → count
	coupons                 int
	byStatus                map[string]int
	broken                  []string // invariants that do not hold, one line each
	quiet                   bool
	quietAfter              time.Duration
}

func (c *checkoutBooks) failures() []string {
	f := append([]string(nil), c.broken...)
	if len(f) > 5 {
		f = append(f[:5], fmt.Sprintf("… %d more", len(c.broken)-5))
	}
	if !c.quiet {
		f = append(f, fmt.Sprintf("not quiet in %s", checkoutQuietMax))
	}
	return f
}

func (c *checkoutBooks) line(r result) string {
	verdict := "PASS"
	if f := r.failures(); len(f) > 0 {
		verdict = "FAIL: " + strings.Join(f, "; ")
	}
	return fmt.Sprintf("%-28s %-5s ops %d (answered %d, unanswered %d, retries %d) refusals %v coupons %d %v quiet %s  %s",
		r.name, r.mode, c.ops, c.answered, c.noAnswer, c.retries, c.refusals, c.coupons, c.byStatus, round(c.quietAfter), verdict)
}

// pair is one (order, coupon) a user works on, and what the client was told about it last.
type pair struct {
	user          int
	order, coupon string
	// told is what the answers so far imply: a settlement status, ABANDONED (locked, then left
	// to the TTL), EXPIRED-CONFIRM (confirmed too late), REFUND-UNANSWERED, or "" (no lock).
	told     string
	rival    bool     // a second order tried to lock the coupon at the same time
	refusals []string // "<op> <code>" of every refused call
}

// runCheckout runs a checkout scenario in a fresh world.
func runCheckout(ctx context.Context, r *run, s scenario, short bool, logf func(string, ...any)) (res result) {
	start := time.Now()
	res = result{name: s.name, mode: s.mode}
	defer func() { res.took = time.Since(start) }()
	w, err := newWorld(ctx, r, s.name, s.mode, "everysec", false,
		"COUPON_LOCK_TTL="+checkoutLockTTL.String(), "COUPON_CHECKOUT_SWEEP_EVERY=2s")
	if err != nil {
		res.err = err
		return res
	}
	defer w.close(r.keep)
	users := checkoutUsersFull
	if short {
		users = checkoutUsersShort
	}
	tpl, err := w.gql.createTemplate(ctx, r.merchant, users*checkoutCouponsPerUser, checkoutCouponsPerUser, 0)
	if err != nil {
		res.err = err
		return res
	}
	tid, _ := strconv.ParseInt(tpl, 10, 64)
	pairs, err := giveCoupons(ctx, w, r, tpl, users)
	if err != nil {
		res.err = err
		return res
	}
	timeoutMin, timeoutMax := s.timeoutMin, s.timeoutMax
	if timeoutMin == 0 {
		timeoutMin, timeoutMax = 5*time.Second, 5*time.Second
	}
	// Each pair is about 3 calls; the fault reads the burst's progress.
	b := &burst{calls: make([]*call, 3*len(pairs)), done: make(chan struct{}), start: time.Now()}
	co := &checkoutBooks{byStatus: map[string]int{}, refusals: map[string]int{}}
	var mu sync.Mutex
	work := make(chan *pair)
	var wg sync.WaitGroup
	for range checkoutConcurrency {
		wg.Go(func() {
			for p := range work {
				ops, answered, retries := p.play(ctx, w.gql, r.users[p.user-1], r.orders, timeoutMin, timeoutMax, s.retry, b)
				mu.Lock()
				for _, r := range p.refusals {
					co.refusals[r]++
				}
				co.ops += ops
				co.answered += answered
				co.retries += retries
				co.noAnswer += ops - answered
				mu.Unlock()
			}
		})
	}
	go func() {
		for _, p := range pairs {
			work <- p
		}
		close(work)
		wg.Wait()
		b.end = time.Now()
		close(b.done)
	}()
	res.fault, err = s.fault(ctx, w, b, tid)
	<-b.done
	if err != nil {
		res.err = err
		return res
	}
	logf("%s: %d pairs, %d calls in %s; fault: %s", s.name, len(pairs), co.ops, round(b.end.Sub(b.start)), res.fault)
	co.quietAfter, co.quiet = w.waitCheckoutQuiet(ctx, checkoutQuietMax)
	if err := w.checkoutBooks(ctx, tid, pairs, co); err != nil {
		res.err = err
		return res
	}
	res.co = co
	return res
}

// giveCoupons claims every user's coupons (sync mode: issued in the request) and returns the
// pairs to play: one order per coupon.
func giveCoupons(ctx context.Context, w *world, r *run, tpl string, users int) ([]*pair, error) {
	var pairs []*pair
	for u := 1; u <= users; u++ {
		for k := range checkoutCouponsPerUser {
			if a := w.gql.redeem(ctx, 10*time.Second, r.users[u-1], tpl, fmt.Sprintf("co-%d-%d", u, k)); !a.accepted() {
				return nil, fmt.Errorf("claim for user %d: %+v", u, a)
			}
		}
		var out struct {
			MyCoupons struct {
				Edges []struct {
					Node struct{ ID string } `json:"node"`
				} `json:"edges"`
			} `json:"myCoupons"`
		}
		// A sync claim may be answered PENDING (its group's write put off behind another batch):
		// its coupon comes with the persister, so the wallet is read until it holds them all.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if err := w.gql.do(ctx, 10*time.Second, r.users[u-1], `{ myCoupons(first: 10) { edges { node { id } } } }`, nil, &out); err != nil {
				return nil, err
			}
			if len(out.MyCoupons.Edges) == checkoutCouponsPerUser {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("user %d holds %d coupons 10 s after the claims", u, len(out.MyCoupons.Edges))
			}
		}
		for k, e := range out.MyCoupons.Edges {
			pairs = append(pairs, &pair{user: u, order: strconv.Itoa(u*100 + k), coupon: e.Node.ID})
		}
	}
	rand.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	return pairs, nil
}

const (
	lockMutation = `mutation($c: ID!, $o: ID!) { lockCoupon(input: {couponId: $c, order: {orderId: $o, shopNumber: "1001", amount: "300.00"}}) {
  settlement { status } userErrors { code message } } }`
	settleMutation = `mutation($c: ID!, $o: ID!) { %s(input: {orderId: $o, couponId: $c}) { settlement { status } userErrors { code message } } }`
	// confirmMutation is the order system's confirmation, with the amount lockMutation locked.
	confirmMutation = `mutation($c: ID!, $o: ID!) { confirmCouponPayment(input: {orderId: $o, couponId: $c, orderAmount: "300.00"}) {
  settlement { status } userErrors { code message } } }`
)

// settlementCall sends one settlement mutation until it gets an answer (with retry; else once)
// and returns the settlement status or the refusal code ("" and false when never answered), and
// how many attempts followed one without an answer.
func settlementCall(ctx context.Context, c *gqlClient, token, op, query string, vars map[string]any, tmin, tmax time.Duration, retry bool) (got string, ok bool, retries int) {
	deadline := time.Now().Add(30 * time.Second)
	timeout := tmin + rand.N(tmax-tmin+1)
	for ; ; retries++ {
		var out map[string]struct {
			Settlement *struct{ Status string } `json:"settlement"`
			UserErrors []userError              `json:"userErrors"`
		}
		err := c.do(ctx, timeout, token, query, vars, &out)
		if err == nil {
			p := out[op]
			switch {
			case p.Settlement != nil:
				return p.Settlement.Status, true, retries
			case len(p.UserErrors) > 0:
				return p.UserErrors[0].Code, true, retries
			}
		}
		if !retry || time.Now().After(deadline) || ctx.Err() != nil {
			return "", false, retries
		}
		timeout = 3 * time.Second
		time.Sleep(100 * time.Millisecond)
	}
}

// play runs one pair: the user's lock (a tenth of them raced by a rival order), then the order
// system's confirm (half; a third of those refunded by the order system), the user's release (a
// quarter) or nothing (the lock's TTL releases it). token is the user's, orders the order
// system's. It counts its calls in b and returns how many it made, how many were answered, and
// the retries.
func (p *pair) play(ctx context.Context, c *gqlClient, token, orders string, tmin, tmax time.Duration, retry bool, b *burst) (ops, answered, retries int) {
	vars := map[string]any{"c": p.coupon, "o": p.order}
	call := func(token, op, query string, vars map[string]any) (string, bool) {
		ops++
		got, ok, n := settlementCall(ctx, c, token, op, query, vars, tmin, tmax, retry)
		retries += n
		if ok {
			answered++
			switch got {
			case "LOCKED", "PAID", "CANCELED", "REFUNDED":
			default:
				p.refusals = append(p.refusals, op+" "+got)
			}
		}
		b.finished.Add(1)
		return got, ok
	}
	defer func() { b.finished.Add(int64(max(0, 3-ops))) }()
	if rand.N(10) == 0 {
		p.rival = true
		rival := map[string]any{"c": p.coupon, "o": p.order + "9"}
		go func() { _, _, _ = settlementCall(ctx, c, token, "lockCoupon", lockMutation, rival, tmin, tmax, false) }()
	}
	got, ok := call(token, "lockCoupon", lockMutation, vars)
	if !ok || got != "LOCKED" {
		return ops, answered, retries
	}
	p.told = got
	switch x := rand.N(4); {
	case x < 2:
		got, ok := call(orders, "confirmCouponPayment", confirmMutation, vars)
		switch {
		case ok && got == "EXPIRED":
			p.told = "EXPIRED-CONFIRM"
		case ok && got == "PAID":
			p.told = got
			if rand.N(3) == 0 {
				got, ok := call(orders, "refundCoupon", fmt.Sprintf(settleMutation, "refundCoupon"), vars)
				switch {
				case !ok:
					p.told = "REFUND-UNANSWERED"
				case got == "REFUNDED":
					p.told = got
				}
			}
		}
	case x == 2:
		if got, ok := call(token, "releaseCoupon", fmt.Sprintf(settleMutation, "releaseCoupon"), vars); ok && got == "CANCELED" {
			p.told = got
		}
	default:
		p.told = "ABANDONED"
	}
	return ops, answered, retries
}

// waitCheckoutQuiet waits until no settlement is LOCKED and the checkout's pending set is empty for 2 s.
func (w *world) waitCheckoutQuiet(ctx context.Context, max time.Duration) (time.Duration, bool) {
	start := time.Now()
	var quietSince time.Time
	for time.Since(start) < max+2*time.Second {
		var locked int
		err1 := w.my.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM coupond.coupon_settlement WHERE status = 'LOCKED'").Scan(&locked)
		pending, err2 := w.rd.rdb.ZCard(ctx, "coupond:checkout:pending").Result()
		quiet := err1 == nil && err2 == nil && locked == 0 && pending == 0
		switch {
		case !quiet:
			quietSince = time.Time{}
		case quietSince.IsZero():
			quietSince = time.Now()
		case time.Since(quietSince) >= 2*time.Second:
			return quietSince.Sub(start), quietSince.Sub(start) <= max
		}
		select {
		case <-ctx.Done():
			return max, false
		case <-time.After(200 * time.Millisecond):
		}
	}
	return max, false
}

// checkoutBooks reads coupons and settlements and checks them against each other and
// against what the clients were told.
func (w *world) checkoutBooks(ctx context.Context, templateID int64, pairs []*pair, co *checkoutBooks) error {
	type couponRow struct {
		status string
		order  string
	}
	coupons := map[string]*couponRow{}
	rows, err := w.my.db.QueryContext(ctx, "SELECT id, status, IFNULL(order_id, '') FROM coupond.user_coupon WHERE template_id = ?", templateID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		c := &couponRow{}
		if err := rows.Scan(&id, &c.status, &c.order); err != nil {
			rows.Close()
			return err
		}
		coupons[id] = c
		co.byStatus[c.status]++
	}
	rows.Close()
	co.coupons = len(coupons)
	type settlementRow struct{ order, status, liveCoupon, liveSlot string }
	settlements := map[string][]settlementRow{} // by coupon
	byPair := map[[2]string]string{}
	srows, err := w.my.db.QueryContext(ctx, "SELECT coupon_id, order_id, status, IFNULL(live_coupon_id, ''), IFNULL(live_slot, '') FROM coupond.coupon_settlement WHERE template_id = ?", templateID)
	if err != nil {
		return err
	}
	for srows.Next() {
		var c string
		var s settlementRow
		if err := srows.Scan(&c, &s.order, &s.status, &s.liveCoupon, &s.liveSlot); err != nil {
			srows.Close()
			return err
		}
		settlements[c] = append(settlements[c], s)
		byPair[[2]string{s.order, c}] = s.status
	}
	srows.Close()
	bad := func(format string, args ...any) { co.broken = append(co.broken, fmt.Sprintf(format, args...)) }
	for id, c := range coupons {
		var live []settlementRow
		for _, s := range settlements[id] {
			isLive := s.status == "LOCKED" || s.status == "PAID"
			if isLive != (s.liveCoupon != "") || isLive != (s.liveSlot != "") {
				bad("coupon %s: settlement of order %s is %s with live keys %q %q", id, s.order, s.status, s.liveCoupon, s.liveSlot)
			}
			if isLive {
				live = append(live, s)
			}
		}
		if len(live) > 1 {
			bad("coupon %s: %d live settlements", id, len(live))
		}
		switch c.status {
		case "LOCKED":
			if len(live) != 1 || live[0].status != "LOCKED" || live[0].order != c.order {
				bad("coupon %s LOCKED for order %q without its LOCKED settlement (%v)", id, c.order, settlements[id])
			}
		case "USED":
			if len(live) != 1 || live[0].status != "PAID" || live[0].order != c.order {
				bad("coupon %s USED for order %q without its PAID settlement (%v)", id, c.order, settlements[id])
			}
		default:
			if len(live) != 0 || c.order != "" {
				bad("coupon %s %s with order %q and live settlements %v", id, c.status, c.order, live)
			}
		}
	}
	for _, p := range pairs {
		for _, r := range p.refusals {
			// Legal refusals: another order won the coupon (only when one tried), a confirmation
			// after the lock's TTL, or after the TTL released it.
			legal := (r == "lockCoupon ALREADY_LOCKED" && p.rival) || r == "confirmCouponPayment EXPIRED" || r == "confirmCouponPayment INVALID_STATE"
			if !legal {
				bad("order %s, coupon %s: %s", p.order, p.coupon, r)
			}
		}
		now := byPair[[2]string{p.order, p.coupon}]
		ok := true
		switch p.told {
		case "PAID":
			ok = now == "PAID"
		case "REFUNDED":
			ok = now == "REFUNDED"
		case "CANCELED", "ABANDONED", "EXPIRED-CONFIRM":
			ok = now == "CANCELED"
		case "REFUND-UNANSWERED":
			ok = now == "PAID" || now == "REFUNDED"
		case "LOCKED": // the next call got no answer or a refusal: anything reachable from LOCKED
			ok = now == "CANCELED" || now == "PAID" || now == "REFUNDED"
		}
		if !ok {
			bad("order %s, coupon %s: told %s, settlement now %q", p.order, p.coupon, p.told, now)
		}
	}
	return nil
}
