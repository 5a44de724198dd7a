package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// burstPlan is a bounded burst of claims: every user makes attempts claims, each with its own
// requestId, from concurrency clients, at most ratePerSec calls per second in total.
type burstPlan struct {
	users, attempts int
	userIDs         []int // the users who claim; nil: users 1…users
	concurrency     int
	ratePerSec      int
	// timeoutMin…timeoutMax is the client timeout of a first call (uniformly drawn).
	timeoutMin, timeoutMax time.Duration
	// retry: a call without an answer (timeout, transport or server error) is sent again with the
	// same requestId every 100 ms (timeout 3 s) until it gets one, for at most 30 s.
	retry bool
}

// who lists the users of the burst.
func (p burstPlan) who() []int {
	if p.userIDs != nil {
		return p.userIDs
	}
	ids := make([]int, p.users)
	for i := range ids {
		ids[i] = i + 1
	}
	return ids
}

// call is one requestId and every answer it got, in order.
type call struct {
	user    int
	reqID   string
	answers []answer
}

// firstAnswer is the first answer that was not an error (ok false when there was none).
func (c *call) firstAnswer() (answer, bool) {
	for _, a := range c.answers {
		if a.Err == nil {
			return a, true
		}
	}
	return answer{}, false
}

// burst is a running or finished burst.
type burst struct {
	plan     burstPlan
	calls    []*call
	finished atomic.Int64
	done     chan struct{}
	start    time.Time
	end      time.Time
}

// startBurst fires plan against template in the background; tokens[u-1] is user u's token.
func startBurst(ctx context.Context, c *gqlClient, template string, tokens []string, plan burstPlan, nonce string) *burst {
	b := &burst{plan: plan, done: make(chan struct{}), start: time.Now()}
	for _, u := range plan.who() {
		for a := 1; a <= plan.attempts; a++ {
			b.calls = append(b.calls, &call{user: u, reqID: fmt.Sprintf("%s-%d-%d", nonce, u, a)})
		}
	}
	rand.Shuffle(len(b.calls), func(i, j int) { b.calls[i], b.calls[j] = b.calls[j], b.calls[i] })
	lim := rate.NewLimiter(rate.Limit(plan.ratePerSec), plan.concurrency)
	work := make(chan *call)
	var wg sync.WaitGroup
	for range plan.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for cl := range work {
				b.fire(ctx, c, template, tokens[cl.user-1], cl)
				b.finished.Add(1)
			}
		}()
	}
	go func() {
		defer close(b.done)
		for _, cl := range b.calls {
			if lim.Wait(ctx) != nil {
				break
			}
			work <- cl
		}
		close(work)
		wg.Wait()
		b.end = time.Now()
	}()
	return b
}

// fire makes one call, and its retries when the plan says so.
func (b *burst) fire(ctx context.Context, c *gqlClient, template, token string, cl *call) {
	timeout := b.plan.timeoutMin
	if d := b.plan.timeoutMax - b.plan.timeoutMin; d > 0 {
		timeout += rand.N(d)
	}
	a := c.redeem(ctx, timeout, token, template, cl.reqID)
	cl.answers = append(cl.answers, a)
	if a.Err == nil {
		return
	}
	if !b.plan.retry {
		return
	}
	giveUp := time.Now().Add(30 * time.Second)
	for a.Err != nil && time.Now().Before(giveUp) && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		a = c.redeem(ctx, 3*time.Second, token, template, cl.reqID)
		cl.answers = append(cl.answers, a)
	}
}

// summary counts the first answers by kind: accepted, each refusal code, and no answer.
func (b *burst) summary() string {
	counts := map[string]int{}
	var errs []string
	for _, cl := range b.calls {
		a := cl.answers[0]
		switch {
		case a.Err != nil:
			counts["no answer"]++
			if msg := fmt.Sprintf("%.100s", a.Err); len(errs) < 2 && !slices.Contains(errs, msg) {
				errs = append(errs, msg)
			}
		case a.accepted():
			counts["accepted"]++
		default:
			counts[a.Code]++
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	if len(errs) > 0 {
		parts = append(parts, fmt.Sprintf("e.g. %q", errs))
	}
	return strings.Join(parts, ", ")
}

// progress is the share of calls finished, 0…1.
func (b *burst) progress() float64 { return float64(b.finished.Load()) / float64(len(b.calls)) }

// waitProgress blocks until the share f of calls has finished or the burst ended.
func (b *burst) waitProgress(ctx context.Context, f float64) error {
	for b.progress() < f {
		select {
		case <-b.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// wait blocks until every call (and its retries) has finished.
func (b *burst) wait(ctx context.Context) error {
	select {
	case <-b.done:
		return nil
	case <-ctx.Done():
		<-b.done // the workers see ctx too and stop quickly
		return ctx.Err()
	}
}

// replay sends every call that got an answer once more with the same requestId (after the
// books are taken) and counts the calls whose answers disagree: another redemption id, accepted
// against refused, or another refusal code. RATE_LIMITED is not remembered by design and ignored.
func (b *burst) replay(ctx context.Context, c *gqlClient, template string, tokens []string) (inconsistent int, examples []string) {
	work := make(chan *call)
	var wg sync.WaitGroup
	for range b.plan.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for cl := range work {
				cl.answers = append(cl.answers, c.redeem(ctx, 5*time.Second, tokens[cl.user-1], template, cl.reqID))
			}
		}()
	}
	for _, cl := range b.calls {
		if _, ok := cl.firstAnswer(); ok {
			work <- cl
		}
	}
	close(work)
	wg.Wait()
	for _, cl := range b.calls {
		if bad, why := inconsistentAnswers(cl); bad {
			inconsistent++
			if len(examples) < 3 {
				examples = append(examples, why)
			}
		}
	}
	return inconsistent, examples
}

// inconsistentAnswers reports whether a call's answers (errors and RATE_LIMITED aside) disagree.
func inconsistentAnswers(cl *call) (bool, string) {
	first, ok := cl.firstAnswer()
	if !ok {
		return false, ""
	}
	for _, a := range cl.answers {
		if a.Err != nil || a.Code == "RATE_LIMITED" {
			continue
		}
		if a.RedemptionID != first.RedemptionID || a.Code != first.Code {
			return true, fmt.Sprintf("%s: %s then %s", cl.reqID, describe(first), describe(a))
		}
	}
	return false, ""
}

func describe(a answer) string {
	if a.accepted() {
		return "accepted " + a.RedemptionID
	}
	return a.Code
}
