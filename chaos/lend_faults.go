package main

// Lend scenarios (issue 22): a template with stock shards whose burst comes from the users of one
// shard, so that shard empties early and borrows the rest of the stock from the others in three
// single-slot steps (stock_lend on the lender's slot, stock_receive on the borrower's, stock_settle
// on the lender's). Writes are paused (CLIENT PAUSE WRITE) on the masters of the shards so that a
// borrow stops between two steps, coupond is killed there with -9 and started again; the lend it
// left open must be settled by the sweep, and every unit of the stock must end up claimed.
//
// The runner knows the shards only as Redis and the API show them (it imports no coupond
// package): a user's shard from the redemption ids of a probe template
// ("<template>.<shard>.<shards>-<seq>"), the shards' hash tags from a SCAN of the masters for
// "{t<id>/<shard>/<salt>}:tpl", the lend journals ("<tag>:lends", field lend id, value
// "units:borrower:ms:gen") and the receipts ("<borrower's tag>:recv:<lend id>", "1" received, "0"
// cancelled).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// lendBurst is how long a lend scenario's burst lasts (its rate is set so): long enough that
	// claims still come well after the sweep gave back the units of a lend the kill left open.
	lendBurst = 20 * time.Second
	// lendTries is how many times a lend fault tries to stop a borrow in its window before it
	// gives up (each try pauses writes for at most a second or two).
	lendTries = 5
	// pauseSafety is the CLIENT PAUSE timeout: writes resume by themselves should the runner die.
	pauseSafety = 3 * time.Second
	// emptyWait bounds the wait for shard 0 to be empty once its lenders are paused; stepWait each
	// wait for a borrow step to show in Redis while the next one is paused. Both stay well below
	// go-redis's read timeout (3 s), which coupond's blocked calls would otherwise hit.
	emptyWait = 1500 * time.Millisecond
	stepWait  = 700 * time.Millisecond
	// borrowStart is how long an empty shard 0 gets for a claim to find it empty and start a
	// borrow (blocked on a paused lender) before its own master is paused: a few claims at the
	// short burst's rate.
	borrowStart = 300 * time.Millisecond
	// sweepWait bounds the wait, after the burst, for the sweep to settle every open lend.
	sweepWait = 20 * time.Second
)

// stockShards is what a lend scenario knows about its template's stock shards.
type stockShards struct {
	n         int
	userShard map[int]int // burst user → shard (from the probe)
	settle    bool        // the fault aims between receive and settle (else between lend and receive)
	tags      []string    // shard i's hash tag, "{t<id>/<i>/<salt>}" (discovered)
	reserve   string      // the template's own tag, "{t<id>}": the reserve's hash and lend journal
	atKill    lendCounts  // the open lends found at the kill (summed over the tries that killed)
	killed    []openLend  // the open lends of the kind the fault aims at, found at its kills
	tries     int         // pause attempts, kills included
	missed    []string    // why each try that did not kill missed
	kills     int
	end       *shardBooks // after the burst and the sweep
}

// lendCounts counts open lends by the state of their receipt.
type lendCounts struct {
	unreceived int // no receipt: the borrower died between lend and receive
	received   int // receipt "1": between receive and settle
	cancelled  int // receipt "0": cancelled, not settled yet
	units      int // units of the lends not received (no receipt)
}

func (c lendCounts) open() int { return c.unreceived + c.received + c.cancelled }

// shardBooks is where the stock of a sharded template is after the burst and the sweep.
type shardBooks struct {
	total, rows int
	dbStock     int
	reserve     int64
	shardStocks []int64
	open        lendCounts
	// the receipts the lends of killed have now: "1" received, "0" cancelled (by the sweep, as the
	// borrower died before its receive), "" none
	killedReceipts map[string]int
	swept          int           // coupond_stock_lends_swept_total of the restarted coupond
	sweptAfter     time.Duration // from the burst's books to an empty journal (-1: never)
	away           int           // accepted answers of the burst whose redemption id does not name shard 0
	// earlyOutOfStock: calls answered OUT_OF_STOCK first before the last call first answered with a
	// claim (while units were still to be had: held by an open lend, say, until the sweep)
	earlyOutOfStock int
}

// probeUserShards finds the stock shard of every user with a token among n shards: each claims
// once on a probe template with n shards, and its redemption id names the shard. A user's shard
// depends on the user and n only (README "Hot templates"), so it holds for the scenario's template.
func probeUserShards(ctx context.Context, w *world, r *run, n int) (map[int]int, error) {
	tpl, err := w.gql.createTemplate(ctx, r.merchant, len(r.users)+1, 1, n)
	if err != nil {
		return nil, fmt.Errorf("probe template: %w", err)
	}
	shard := make(map[int]int, len(r.users))
	var mu sync.Mutex
	var errs []error
	work := make(chan int)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range work {
				a := w.gql.redeem(ctx, 10*time.Second, r.users[u-1], tpl, "shard-probe-"+strconv.Itoa(u))
				i, err := shardOfRedemption(a, n)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("user %d: %w", u, err))
				} else {
					shard[u] = i
				}
				mu.Unlock()
			}
		}()
	}
	for u := 1; u <= len(r.users); u++ {
		work <- u
	}
	close(work)
	wg.Wait()
	if len(errs) > 0 {
		return nil, fmt.Errorf("probe of the users' shards: %d failed, e.g. %w", len(errs), errs[0])
	}
	return shard, nil
}

// shardOfRedemption reads the shard from an accepted claim's redemption id
// "<template>.<shard>.<shards>-<seq>".
func shardOfRedemption(a answer, n int) (int, error) {
	if !a.accepted() {
		return 0, fmt.Errorf("claim not accepted: %v %s", a.Err, a.Code)
	}
	head, _, _ := strings.Cut(a.RedemptionID, "-")
	parts := strings.Split(head, ".")
	if len(parts) != 3 || parts[2] != strconv.Itoa(n) {
		return 0, fmt.Errorf("redemption id %q does not name one of %d shards", a.RedemptionID, n)
	}
	i, err := strconv.Atoi(parts[1])
	if err != nil || i < 0 || i >= n {
		return 0, fmt.Errorf("redemption id %q: bad shard", a.RedemptionID)
	}
	return i, nil
}

// lendPlan is the burst of a lend scenario: the users of shard 0 (all with a token), each
// attempting attemptsPerUser claims over lendBurst, against a stock of 9/10 of them, so their
// demand (limitPerPerson each) is about twice the stock and shard 0, with a third of it, borrows
// the rest from the other shards.
func lendPlan(p burstPlan, userShard map[int]int) (burstPlan, int, error) {
	p.userIDs = nil
	for u := 1; u <= len(userShard); u++ {
		if s, ok := userShard[u]; ok && s == 0 {
			p.userIDs = append(p.userIDs, u)
		}
	}
	if len(p.userIDs) < 30 {
		return p, 0, fmt.Errorf("only %d of %d users on shard 0", len(p.userIDs), len(userShard))
	}
	p.users = len(p.userIDs)
	p.ratePerSec = max(1, int(float64(p.users*p.attempts)/lendBurst.Seconds()))
	return p, p.users * 9 / 10, nil
}

// discover finds the hash tags of the template's shards: a SCAN of every master for its shard
// hashes (they exist once the template is cached), waiting up to 10 s for all n.
func (sh *stockShards) discover(ctx context.Context, w *world, templateID int64) error {
	if len(sh.tags) == sh.n {
		return nil
	}
	sh.reserve = fmt.Sprintf("{t%d}", templateID)
	prefix := fmt.Sprintf("{t%d/", templateID)
	return waitFor(ctx, 10*time.Second, func() error {
		tags := make([]string, sh.n)
		var mu sync.Mutex
		err := w.rc.rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			it := c.Scan(ctx, 0, prefix+"*}:tpl", 1000).Iterator()
			for it.Next(ctx) {
				tag := strings.TrimSuffix(it.Val(), ":tpl") // {t<id>/<i>/<salt>}
				parts := strings.Split(strings.Trim(tag, "{}"), "/")
				if len(parts) != 3 {
					continue
				}
				if i, err := strconv.Atoi(parts[1]); err == nil && i >= 0 && i < sh.n {
					mu.Lock()
					tags[i] = tag
					mu.Unlock()
				}
			}
			return it.Err()
		})
		if err != nil {
			return err
		}
		for i, t := range tags {
			if t == "" {
				return fmt.Errorf("no hash of stock shard %d of template %d", i, templateID)
			}
		}
		sh.tags = tags
		return nil
	})
}

// journals are the lend journals of the template: the reserve's, then the shards'.
func (sh *stockShards) journals() []string {
	out := []string{sh.reserve + ":lends"}
	for _, t := range sh.tags {
		out = append(out, t+":lends")
	}
	return out
}

// openLend is one entry of a lend journal with its receipt.
type openLend struct {
	id       string
	units    int
	borrower int
	receipt  string // "", "1" or "0"
}

// openLends reads every lend journal of the template and the receipt of each open lend.
func (sh *stockShards) openLends(ctx context.Context, w *world) ([]openLend, error) {
	var out []openLend
	for _, j := range sh.journals() {
		m, err := w.data.HGetAll(ctx, j).Result()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", j, err)
		}
		for id, v := range m {
			parts := strings.SplitN(v, ":", 4)
			if len(parts) < 3 {
				return nil, fmt.Errorf("%s %s: entry %q", j, id, v)
			}
			units, err1 := strconv.Atoi(parts[0])
			borrower, err2 := strconv.Atoi(parts[1])
			if err := errors.Join(err1, err2); err != nil || borrower < 0 || borrower >= sh.n {
				return nil, fmt.Errorf("%s %s: entry %q", j, id, v)
			}
			receipt, err := w.data.Get(ctx, sh.tags[borrower]+":recv:"+id).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				return nil, err
			}
			out = append(out, openLend{id: id, units: units, borrower: borrower, receipt: receipt})
		}
	}
	return out, nil
}

// countLends sorts open lends by their receipt.
func countLends(lends []openLend) lendCounts {
	var c lendCounts
	for _, l := range lends {
		switch l.receipt {
		case "":
			c.unreceived++
			c.units += l.units
		case "1":
			c.received++
		default:
			c.cancelled++
		}
	}
	return c
}

// hashStock reads the "stock" field of the hash with tag (0 when it has none).
func hashStock(ctx context.Context, w *world, tag string) (int64, error) {
	v, err := w.data.HGet(ctx, tag+":tpl", "stock").Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return v, err
}

// redisStock is what Redis may still hand out of the template: the reserve, the shards' stocks
// and the units of lends not received, read one after the other (the books read it once the
// template is quiet).
func (sh *stockShards) redisStock(ctx context.Context, w *world, templateID int64) (int64, error) {
	if err := sh.discover(ctx, w, templateID); err != nil {
		return 0, err
	}
	sum, err := hashStock(ctx, w, sh.reserve)
	if err != nil {
		return 0, err
	}
	for _, t := range sh.tags {
		s, err := hashStock(ctx, w, t)
		if err != nil {
			return 0, err
		}
		sum += s
	}
	lends, err := sh.openLends(ctx, w)
	if err != nil {
		return 0, err
	}
	return sum + int64(countLends(lends).units), nil
}

// pauser pauses and resumes writes on masters of the world's cluster.
type pauser struct {
	clients map[string]*redis.Client // by address
	paused  map[string]bool
}

func newPauser(addrs ...string) *pauser {
	p := &pauser{clients: map[string]*redis.Client{}, paused: map[string]bool{}}
	for _, a := range addrs {
		p.clients[a] = redis.NewClient(&redis.Options{Addr: a, MaxRetries: -1})
	}
	return p
}

// pause makes the masters at addrs block every write (and every script) for at most pauseSafety.
func (p *pauser) pause(ctx context.Context, addrs ...string) error {
	for _, a := range addrs {
		if err := p.clients[a].Do(ctx, "CLIENT", "PAUSE", pauseSafety.Milliseconds(), "WRITE").Err(); err != nil {
			return fmt.Errorf("CLIENT PAUSE on %s: %w", a, err)
		}
		p.paused[a] = true
	}
	return nil
}

// unpause lets the masters at addrs write again.
func (p *pauser) unpause(ctx context.Context, addrs ...string) error {
	var errs []error
	for _, a := range addrs {
		if err := p.clients[a].Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
			errs = append(errs, fmt.Errorf("CLIENT UNPAUSE on %s: %w", a, err))
			continue
		}
		delete(p.paused, a)
	}
	return errors.Join(errs...)
}

// unpauseAll lets every master it paused write again.
func (p *pauser) unpauseAll(ctx context.Context) error {
	var addrs []string
	for a := range p.paused {
		addrs = append(addrs, a)
	}
	return p.unpause(ctx, addrs...)
}

func (p *pauser) close() {
	for _, c := range p.clients {
		c.Close()
	}
}

// killInBorrow kill -9s coupond while one of its borrows for shard 0 is stopped in a window, and
// starts it again: with settle false between lend and receive (the lend is in the lender's journal,
// no receipt), with settle true between receive and settle (receipt "1", the journal entry still
// open). Once the burst borrows (shard 0 has received a lend), each try waits until shard 0 is
// nearly empty while the lenders still have stock, pauses writes on the lenders' masters, waits for
// shard 0 to be empty (its next claim then borrows and blocks on its lend), pauses shard 0's master
// and resumes the lenders (the lend runs, the receive blocks) and waits until the lend shows in a
// journal without a receipt; for settle it then pauses the lenders again and resumes shard 0 (the
// receive runs, the settle blocks) and waits for the receipt "1". Then coupond is killed, every
// master resumed, the open lends counted and coupond started again. A try that misses a step
// (shard 0 not empty within emptyWait, the lend or the receipt not there within stepWait) resumes
// the masters and tries again, lendTries times in all; so does a kill that found no lend of the
// kind aimed at.
func killInBorrow(settle bool) fault {
	return func(ctx context.Context, w *world, b *burst, templateID int64) (string, error) {
		sh := w.shards
		sh.settle = settle
		if err := sh.discover(ctx, w, templateID); err != nil {
			return "", err
		}
		masters := make([]string, sh.n)
		for i, t := range sh.tags {
			m, err := w.rc.masterOf(ctx, t+":tpl")
			if err != nil {
				return "", err
			}
			masters[i] = m.addr
		}
		borrower, lenders := masters[0], uniq(masters[1:])
		for _, l := range lenders {
			if l == borrower {
				return "", fmt.Errorf("shard 0 and a lender share master %s (masters %v)", borrower, masters)
			}
		}
		p := newPauser(masters...)
		defer p.close()
		defer func() { _ = p.unpauseAll(context.WithoutCancel(ctx)) }()
		window := "between lend and receive"
		if settle {
			window = "between receive and settle"
		}
		for sh.tries < lendTries {
			if done(b) {
				break
			}
			sh.tries++
			missed, err := catchBorrow(ctx, w, b, p, settle, borrower, lenders)
			if err != nil {
				return "", err
			}
			if missed != "" {
				sh.missed = append(sh.missed, missed)
				if err := p.unpauseAll(ctx); err != nil {
					return "", err
				}
				continue
			}
			w.srv.p.kill9()
			sh.kills++
			if err := p.unpauseAll(ctx); err != nil {
				return "", err
			}
			lends, err := sh.openLends(ctx, w)
			if err != nil {
				return "", err
			}
			c := countLends(lends)
			for _, l := range lends {
				if (!settle && l.receipt == "") || (settle && l.receipt == "1") {
					sh.killed = append(sh.killed, l)
				}
			}
			sh.atKill.unreceived += c.unreceived
			sh.atKill.received += c.received
			sh.atKill.cancelled += c.cancelled
			sh.atKill.units += c.units
			if err := w.srv.start(ctx); err != nil {
				return "", err
			}
			if (!settle && c.unreceived > 0) || (settle && c.received > 0) {
				break
			}
		}
		return fmt.Sprintf("kill -9 coupond %s of a borrow by shard 0 (masters: shard 0 %s, lenders %v), %d tries (missed: %q), %d kills; open lends at the kill: %d without receipt (%d units), %d received, %d cancelled",
			window, borrower, lenders, sh.tries, sh.missed, sh.kills, sh.atKill.unreceived, sh.atKill.units, sh.atKill.received, sh.atKill.cancelled), nil
	}
}

// catchBorrow stops a borrow of shard 0 in its window (see killInBorrow), or says why it did not
// ("" when it did); the masters stay paused as they are then (the caller resumes them).
func catchBorrow(ctx context.Context, w *world, b *burst, p *pauser, settle bool, borrower string, lenders []string) (missed string, err error) {
	sh := w.shards
	// Shard 0 nearly empty and some lender with stock, during the borrowing phase (not caught when
	// that does not come within 30 s).
	err = waitFor(ctx, 30*time.Second, func() error {
		if done(b) {
			return nil
		}
		got, err := w.data.HGet(ctx, sh.tags[0]+":tpl", "got").Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		s0, err := hashStock(ctx, w, sh.tags[0])
		if err != nil {
			return err
		}
		var rest int64
		for _, t := range sh.tags[1:] {
			s, err := hashStock(ctx, w, t)
			if err != nil {
				return err
			}
			rest += s
		}
		if got == 0 || s0 > 3 || rest < 2 {
			return fmt.Errorf("shard 0: received %d, stock %d; lenders' stock %d", got, s0, rest)
		}
		return nil
	})
	if done(b) {
		return "burst over", nil
	}
	if err != nil {
		return fmt.Sprintf("no borrowing phase within 30 s (%v)", err), ctx.Err()
	}
	before, err := sh.openLends(ctx, w)
	if err != nil {
		return "", err
	}
	seen := map[string]bool{}
	for _, l := range before {
		seen[l.id] = true
	}
	if err := p.pause(ctx, lenders...); err != nil {
		return "", err
	}
	// Shard 0 empty: its next claim borrows, and the lend blocks on a paused lender.
	if err := waitFor(ctx, emptyWait, func() error {
		s0, err := hashStock(ctx, w, sh.tags[0])
		if err == nil && s0 > 0 {
			err = fmt.Errorf("shard 0 stock %d", s0)
		}
		return err
	}); err != nil {
		return fmt.Sprintf("shard 0 not empty (%v)", err), ctx.Err()
	}
	time.Sleep(borrowStart)
	if err := p.pause(ctx, borrower); err != nil {
		return "", err
	}
	if err := p.unpause(ctx, lenders...); err != nil {
		return "", err
	}
	var lend openLend
	if err := waitFor(ctx, stepWait, func() error {
		lends, err := sh.openLends(ctx, w)
		if err != nil {
			return err
		}
		for _, l := range lends {
			if !seen[l.id] && l.borrower == 0 && l.receipt == "" {
				lend = l
				return nil
			}
		}
		return errors.New("no new lend to shard 0")
	}); err != nil {
		return fmt.Sprintf("no lend (%v)", err), ctx.Err()
	}
	if !settle {
		return "", nil
	}
	if err := p.pause(ctx, lenders...); err != nil {
		return "", err
	}
	if err := p.unpause(ctx, borrower); err != nil {
		return "", err
	}
	if err := waitFor(ctx, stepWait, func() error {
		r, err := w.data.Get(ctx, sh.tags[0]+":recv:"+lend.id).Result()
		if err == nil && r != "1" {
			err = fmt.Errorf("receipt %q", r)
		}
		return err
	}); err != nil {
		return fmt.Sprintf("lend %s not received (%v)", lend.id, err), ctx.Err()
	}
	return "", nil
}

// done reports whether every call of the burst has been sent and finished.
func done(b *burst) bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// uniq is s without repeats, in order.
func uniq(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// takeShardBooks waits (up to sweepWait) until no lend of the template is open, then reads where
// its stock is: MySQL's rows and stock, the reserve, each shard's sub-stock, the open lends.
func (w *world) takeShardBooks(ctx context.Context, templateID int64, b *burst) (*shardBooks, error) {
	sh := w.shards
	if err := sh.discover(ctx, w, templateID); err != nil {
		return nil, err
	}
	sb := &shardBooks{sweptAfter: -1}
	start := time.Now()
	err := waitFor(ctx, sweepWait, func() error {
		lends, err := sh.openLends(ctx, w)
		if err == nil && len(lends) > 0 {
			err = fmt.Errorf("%d lends open", len(lends))
		}
		return err
	})
	if err == nil {
		sb.sweptAfter = time.Since(start)
	}
	lends, err := sh.openLends(ctx, w)
	if err != nil {
		return nil, err
	}
	sb.open = countLends(lends)
	if err := w.my.db.QueryRowContext(ctx, "SELECT total_stock, stock FROM coupond.coupon_template WHERE id = ?", templateID).Scan(&sb.total, &sb.dbStock); err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	if err := w.my.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM coupond.user_coupon WHERE template_id = ?", templateID).Scan(&sb.rows); err != nil {
		return nil, fmt.Errorf("read coupons: %w", err)
	}
	if sb.reserve, err = hashStock(ctx, w, sh.reserve); err != nil {
		return nil, err
	}
	for _, t := range sh.tags {
		s, err := hashStock(ctx, w, t)
		if err != nil {
			return nil, err
		}
		sb.shardStocks = append(sb.shardStocks, s)
	}
	sb.killedReceipts = map[string]int{}
	for _, l := range sh.killed {
		r, err := w.data.Get(ctx, sh.tags[l.borrower]+":recv:"+l.id).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, err
		}
		sb.killedReceipts[r]++
	}
	if body, ok := get(w.srv.metrics + "/metrics"); ok {
		sb.swept = sumSeries(body, "coupond_stock_lends_swept_total")
	}
	var lastAccepted time.Time
	for _, cl := range b.calls {
		if a, ok := cl.firstAnswer(); ok && a.accepted() && a.At.After(lastAccepted) {
			lastAccepted = a.At
		}
	}
	for _, cl := range b.calls {
		if a, ok := cl.firstAnswer(); ok && a.Code == "OUT_OF_STOCK" && a.At.Before(lastAccepted) {
			sb.earlyOutOfStock++
		}
	}
	for _, cl := range b.calls {
		for _, a := range cl.answers {
			if i, err := shardOfRedemption(a, sh.n); a.accepted() && (err != nil || i != 0) {
				sb.away++
			}
		}
	}
	return sb, nil
}

// failures lists how the stock of a lend scenario is not where it must be, and a fault that missed
// its window.
func (sh *stockShards) failures() []string {
	var f []string
	switch {
	case !sh.settle && sh.atKill.unreceived == 0:
		f = append(f, fmt.Sprintf("no lend open without receipt at a kill (%d tries, %d kills)", sh.tries, sh.kills))
	case sh.settle && sh.atKill.received == 0:
		f = append(f, fmt.Sprintf("no received lend left unsettled at a kill (%d tries, %d kills)", sh.tries, sh.kills))
	}
	sb := sh.end
	if sb == nil {
		return f
	}
	if n := sb.open.open(); n > 0 {
		f = append(f, fmt.Sprintf("%d lends still open %s after the burst", n, sweepWait))
	}
	if sb.rows != sb.total {
		f = append(f, fmt.Sprintf("%d of %d units claimed", sb.rows, sb.total))
	}
	if sb.dbStock != 0 || sb.reserve != 0 || sb.open.units != 0 {
		f = append(f, fmt.Sprintf("stock left: MySQL %d, reserve %d, open lends %d units", sb.dbStock, sb.reserve, sb.open.units))
	}
	for i, s := range sb.shardStocks {
		if s != 0 {
			f = append(f, fmt.Sprintf("shard %d stock %d", i, s))
		}
	}
	if sb.away > 0 {
		f = append(f, fmt.Sprintf("%d accepted claims not on shard 0", sb.away))
	}
	return f
}

// summary is the lend scenario's part of its result line.
func (sh *stockShards) summary() string {
	s := fmt.Sprintf("lends open at the kill: %d without receipt, %d received, %d cancelled (%d tries, %d kills)",
		sh.atKill.unreceived, sh.atKill.received, sh.atKill.cancelled, sh.tries, sh.kills)
	if sb := sh.end; sb != nil {
		s += fmt.Sprintf("; their receipts after the burst: %d cancelled, %d received, %d none; lends swept by the restarted coupond: %d",
			sb.killedReceipts["0"], sb.killedReceipts["1"], sb.killedReceipts[""], sb.swept)
		swept := "never"
		if sb.sweptAfter >= 0 {
			swept = round(sb.sweptAfter).String()
		}
		s += fmt.Sprintf("; after the sweep (journals empty after %s): %d/%d claimed, stock MySQL %d reserve %d shards %v, %d lends open",
			swept, sb.rows, sb.total, sb.dbStock, sb.reserve, sb.shardStocks, sb.open.open())
		s += fmt.Sprintf("; %d calls answered OUT_OF_STOCK before the last claim was accepted", sb.earlyOutOfStock)
	}
	return s
}
