package reminder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/coupon/lease"
	"coupond/ent"
	"coupond/ent/couponreminder"
	"coupond/ent/predicate"
	"coupond/store"
)

const (
	// leaseTTL is the bucket lease's TTL: a holder killed mid-bucket keeps others out this long.
	leaseTTL = 30 * time.Second
	// busyRetry is when a bucket task whose lease another holder has tries again.
	busyRetry = 5 * time.Second
	// maxReason is the longest failure_reason kept.
	maxReason = 255
)

// Outcome counts what one send of reminders did.
type Outcome struct {
	Sent     int // delivered, now SENT
	Retrying int // failed, PENDING again after their backoff
	Failed   int // failed for the last time, now FAILED
	Skipped  int // their template ended first, now SKIPPED
}

func (o *Outcome) add(p Outcome) {
	o.Sent += p.Sent
	o.Retrying += p.Retrying
	o.Failed += p.Failed
	o.Skipped += p.Skipped
}

// RetryError says a bucket still holds PENDING reminders, due again After from now (a failed
// delivery's backoff, or the lease held by another sender). The bucket's task is retried then
// (jobs.RetryDelay reads RetryAfter).
type RetryError struct {
	After  time.Duration
	Reason string
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("reminders left: %s; retry in %s", e.Reason, e.After)
}

// RetryAfter is when to try the bucket again.
func (e *RetryError) RetryAfter() time.Duration { return e.After }

// SendBucket sends the template's PENDING reminders due within the minute starting at minute
// (their bucket) that are due now, in pages, under the bucket's lease. It returns a *RetryError
// when reminders of the bucket stay PENDING (a failed delivery waits for its backoff, or another
// sender holds the lease), so the task runs again when they are due; nil when the bucket is done.
// Idempotent: a delivered reminder is SENT and never selected again.
func (s *Service) SendBucket(ctx context.Context, templateID int64, minute time.Time) (Outcome, error) {
	minute = BucketMinute(minute)
	ctx, release, err := lease.Take(ctx, s.rdb, keys.ReminderLease(templateID, minute.Unix()), leaseTTL)
	if err != nil {
		return Outcome{}, err
	}
	if release == nil {
		return Outcome{}, &RetryError{After: busyRetry, Reason: "another sender holds the bucket"}
	}
	defer release()
	out, cut, err := s.sendBucket(ctx, templateID, minute, 0)
	if err != nil {
		return out, err
	}
	// Next: the earliest due reminder left, or, after a cut pass, the earliest of those waiting
	// for their backoff (the others are due already, but the receiver just failed a whole page).
	where, reason := inBucket(templateID, minute), "deliveries to retry"
	if cut {
		where, reason = append(where, couponreminder.DueAtGT(s.now())), "no delivery of a page succeeded"
	}
	next, err := s.db.CouponReminder.Query().Where(where...).
		Order(ent.Asc(couponreminder.FieldDueAt)).Select(couponreminder.FieldDueAt).First(ctx)
	switch {
	case ent.IsNotFound(err) && !cut:
		return out, nil
	case ent.IsNotFound(err):
		return out, &RetryError{After: s.cfg.RetryBase, Reason: reason}
	case err != nil:
		return out, fmt.Errorf("reminder bucket: next due: %w", err)
	}
	return out, &RetryError{After: max(next.DueAt.Sub(s.now()), 10*time.Millisecond), Reason: reason}
}

// Sweep sends PENDING reminders overdue by more than SweepGrace whatever happened to their
// bucket's task (lost, failed, archived; a create that raced it), at most SweepLimit per run, the
// most overdue buckets first; a bucket another sender holds is left to it.
func (s *Service) Sweep(ctx context.Context) (Outcome, error) {
	var out Outcome
	rows, err := s.db.CouponReminder.Query().
		Where(couponreminder.StatusEQ(couponreminder.StatusPENDING), couponreminder.DueAtLTE(s.now().Add(-s.cfg.SweepGrace))).
		Order(ent.Asc(couponreminder.FieldDueAt)).Limit(s.cfg.SweepLimit).
		Select(couponreminder.FieldTemplateID, couponreminder.FieldRemindAt).All(ctx)
	if err != nil {
		return out, fmt.Errorf("reminder sweep: find overdue: %w", err)
	}
	type bucket struct {
		template int64
		minute   time.Time
	}
	var order []bucket
	seen := map[bucket]bool{}
	for _, r := range rows {
		b := bucket{r.TemplateID, BucketMinute(r.RemindAt)}
		if !seen[b] {
			seen[b] = true
			order = append(order, b)
		}
	}
	budget := s.cfg.SweepLimit
	for _, b := range order {
		if budget <= 0 {
			break
		}
		lctx, release, err := lease.Take(ctx, s.rdb, keys.ReminderLease(b.template, b.minute.Unix()), leaseTTL)
		if err != nil {
			return out, err
		}
		if release == nil {
			continue
		}
		o, _, err := s.sendBucket(lctx, b.template, b.minute, budget)
		release()
		out.add(o)
		budget -= o.Sent + o.Retrying + o.Failed + o.Skipped
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// inBucket selects the PENDING reminders of the template's bucket of minute.
func inBucket(templateID int64, minute time.Time) []predicate.CouponReminder {
	return []predicate.CouponReminder{
		couponreminder.TemplateID(templateID), couponreminder.StatusEQ(couponreminder.StatusPENDING),
		couponreminder.RemindAtGTE(minute), couponreminder.RemindAtLT(minute.Add(time.Minute)),
	}
}

// sendBucket sends the bucket's reminders due now in pages of Config.Page (at most limit of
// them; 0: all), reading the template again before each page, so a template terminated
// meanwhile sends nothing more. Pages follow the index (template_id, status, remind_at, id):
// ordered by (remind_at, id) with a keyset on both, and a sent reminder leaves the PENDING part
// of the index, so a page reads about its own rows however large the bucket. A page where no
// delivery succeeded and some will be retried ends the pass (cut: the receiver is down, and the
// rest waits for a backoff rather than for a timeout each).
func (s *Service) sendBucket(ctx context.Context, templateID int64, minute time.Time, limit int) (out Outcome, cut bool, err error) {
	var afterAt time.Time
	var afterID int64
	done := func() int { return out.Sent + out.Retrying + out.Failed + out.Skipped }
	for limit == 0 || done() < limit {
		size := s.cfg.Page
		if limit > 0 {
			size = min(size, limit-done())
		}
		t, err := s.templates.Get(ctx, templateID)
		if err != nil && !errors.Is(err, coupon.ErrNotFound) {
			return out, false, fmt.Errorf("reminder bucket: load template %d: %w", templateID, err)
		}
		where := append(inBucket(templateID, minute), couponreminder.DueAtLTE(s.now()))
		if afterID > 0 {
			where = append(where, couponreminder.Or(couponreminder.RemindAtGT(afterAt),
				couponreminder.And(couponreminder.RemindAt(afterAt), couponreminder.IDGT(afterID))))
		}
		rows, err := s.db.CouponReminder.Query().Where(where...).
			Order(ent.Asc(couponreminder.FieldRemindAt), ent.Asc(couponreminder.FieldID)).Limit(size).All(ctx)
		if err != nil {
			return out, false, fmt.Errorf("reminder bucket: read page after %d: %w", afterID, err)
		}
		if len(rows) == 0 {
			break
		}
		afterAt, afterID = rows[len(rows)-1].RemindAt, rows[len(rows)-1].ID
		var p Outcome
		switch {
		case t == nil:
			p, err = s.skip(ctx, rows, "the template does not exist")
		case t.StatusAt(s.now()) == coupon.StatusEnded:
			p, err = s.skip(ctx, rows, "the template ended before the reminder was sent")
		default:
			p, err = s.deliverPage(ctx, t, rows)
		}
		out.add(p)
		if err != nil {
			return out, false, err
		}
		if p.Sent == 0 && p.Skipped == 0 && p.Retrying > 0 {
			return out, true, nil
		}
		if len(rows) < size {
			break
		}
	}
	return out, false, nil
}

// skip marks the page's reminders SKIPPED with reason.
func (s *Service) skip(ctx context.Context, rows []*ent.CouponReminder, reason string) (Outcome, error) {
	n := 0
	for k, g := range s.byVersion(rows) {
		c, err := s.db.CouponReminder.Update().Where(g.pending(k.version)...).
			SetStatus(couponreminder.StatusSKIPPED).SetFailureReason(reason).Save(ctx)
		if err != nil {
			return Outcome{Skipped: n}, fmt.Errorf("reminder bucket: skip: %w", err)
		}
		n += c
	}
	remindersTotal.WithLabelValues("skipped").Add(float64(n))
	return Outcome{Skipped: n}, nil
}

// attempt is one delivery of a page and how it went.
type attempt struct {
	row *ent.CouponReminder
	err error
}

// deliverPage delivers the page's reminders (Config.Parallel at a time), then records them: the
// delivered SENT in one UPDATE per version, the failed by (version, attempts, reason): PENDING
// again after their backoff, or FAILED once Config.Retries retries failed. Each UPDATE names the
// rows' version and requires PENDING, so a reminder re-armed or cancelled meanwhile keeps its new
// state. Deliveries cut short by ctx (the lease lost, a shutdown) are not counted as attempts.
func (s *Service) deliverPage(ctx context.Context, t *coupon.Template, rows []*ent.CouponReminder) (Outcome, error) {
	results := make([]attempt, len(rows))
	sem := make(chan struct{}, s.cfg.Parallel)
	var wg sync.WaitGroup
	for i, r := range rows {
		results[i].row = r
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i].err = s.sender.Send(ctx, Delivery{
				DeliveryID: DeliveryID(r.ID, r.Version), UserID: r.UserID, TemplateID: r.TemplateID,
				TemplateName: t.Name, Channel: string(r.Channel), RemindAt: r.RemindAt.UTC(),
			})
		}()
	}
	wg.Wait()
	var sent []*ent.CouponReminder
	type failKey struct {
		group
		attempts int
		reason   string
	}
	failed := map[failKey]*rowSet{}
	details := map[string]int{} // what the log sees: each failure's detail, once per page with its count
	for _, a := range results {
		switch {
		case a.err == nil:
			sent = append(sent, a.row)
		case ctx.Err() == nil:
			k := failKey{s.groupOf(a.row), a.row.Attempts, publicReason(a.err)}
			if failed[k] == nil {
				failed[k] = &rowSet{}
			}
			failed[k].add(a.row)
			details[a.err.Error()]++
		}
	}
	for detail, n := range details {
		slog.WarnContext(ctx, "reminder deliveries failed", "template", t.ID, "count", n, "err", detail)
	}
	// Recorded on a context the lease's end does not cut: these deliveries happened.
	ctx = context.WithoutCancel(ctx)
	var out Outcome
	now := s.now()
	for k, g := range s.byVersion(sent) {
		n, err := s.db.CouponReminder.Update().Where(g.pending(k.version)...).
			SetStatus(couponreminder.StatusSENT).SetSentAt(now).ClearFailureReason().Save(ctx)
		if err != nil {
			return out, fmt.Errorf("reminder bucket: mark sent: %w", err)
		}
		out.Sent += n
	}
	remindersTotal.WithLabelValues("sent").Add(float64(out.Sent))
	for k, g := range failed {
		deliveryFailures.Add(float64(len(g.ids)))
		tries := k.attempts + 1
		u := s.db.CouponReminder.Update().
			Where(append(g.pending(k.version), couponreminder.Attempts(k.attempts))...).
			SetAttempts(tries).SetFailureReason(k.reason)
		last := tries > s.cfg.Retries
		if last {
			u = u.SetStatus(couponreminder.StatusFAILED)
		} else {
			u = u.SetDueAt(now.Add(s.backoff(tries)))
		}
		n, err := u.Save(ctx)
		if err != nil {
			return out, fmt.Errorf("reminder bucket: record failed deliveries: %w", err)
		}
		if last {
			out.Failed += n
			remindersTotal.WithLabelValues("failed").Add(float64(n))
			slog.WarnContext(ctx, "reminders failed for good", "template", t.ID, "count", n, "attempts", tries, "reason", k.reason)
		} else {
			out.Retrying += n
		}
	}
	return out, nil
}

// backoff is the wait after the nth failed attempt: RetryBase doubled n−1 times, at most RetryMax.
func (s *Service) backoff(n int) time.Duration {
	d := s.cfg.RetryBase
	for i := 1; i < n && d < s.cfg.RetryMax; i++ {
		d *= 2
	}
	return min(d, s.cfg.RetryMax)
}

// group is what one outcome UPDATE of a page covers: rows of one version on one user shard.
type group struct{ version, shard int }

// groupOf is r's group under Config.UserShards.
func (s *Service) groupOf(r *ent.CouponReminder) group {
	return group{r.Version, store.UserShard(r.UserID, s.cfg.UserShards)}
}

// rowSet is the ids and users of a group's rows.
type rowSet struct{ ids, users []int64 }

func (g *rowSet) add(r *ent.CouponReminder) {
	g.ids, g.users = append(g.ids, r.ID), append(g.users, r.UserID)
}

// pending selects the set's rows still PENDING at this version; naming the users routes the
// UPDATE to their one shard.
func (g *rowSet) pending(version int) []predicate.CouponReminder {
	return []predicate.CouponReminder{couponreminder.UserIDIn(g.users...), couponreminder.IDIn(g.ids...),
		couponreminder.Version(version), couponreminder.StatusEQ(couponreminder.StatusPENDING)}
}

// byVersion groups rows by version and user shard.
func (s *Service) byVersion(rows []*ent.CouponReminder) map[group]*rowSet {
	out := map[group]*rowSet{}
	for _, r := range rows {
		k := s.groupOf(r)
		if out[k] == nil {
			out[k] = &rowSet{}
		}
		out[k].add(r)
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
