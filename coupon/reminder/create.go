package reminder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/couponreminder"
	"coupond/ent/predicate"
	"coupond/idgen"
	"coupond/store"
)

// conflictRetries bounds the re-runs of a create that lost a deadlock or lock wait to a racing one.
const conflictRetries = 5

// Create sets the user's reminder of a template on a channel, minutesBefore minutes before its
// claim window opens, and answers the reminder as it stands. Refusals (typed errors, in this
// order): minutesBefore outside 1…10080 → INVALID_INPUT (minutesBefore); an unknown template →
// NOT_FOUND (templateId); a terminated or ended template → ENDED; a template whose window has
// opened → INVALID_STATE (the template is ACTIVE: a reminder before the opening no longer
// exists; NOT_STARTED would say the opposite); a remindAt (start − minutesBefore) not in the
// future → INVALID_INPUT (minutesBefore: a smaller one may still do).
//
// There is one reminder per (user, template, channel), by unique key: concurrent creates make one
// row, and each answers it. Creating it again while it is PENDING with the same remindAt changes
// nothing; otherwise (another minutesBefore, or after it was cancelled, sent or failed) the same
// row is re-armed: PENDING at the new remindAt, as a new delivery (version + 1). The bucket's task
// is asked for after the commit; when the queue refuses, the sweep sends the reminder instead.
func (s *Service) Create(ctx context.Context, userID, templateID int64, channel couponreminder.Channel, minutesBefore int) (*Reminder, error) {
	if err := couponreminder.ChannelValidator(channel); err != nil {
		return nil, coupon.FieldError("channel", "channel must be APP or EMAIL")
	}
	if minutesBefore < MinMinutesBefore || minutesBefore > MaxMinutesBefore {
		return nil, coupon.FieldError("minutesBefore", fmt.Sprintf("minutesBefore must be between %d and %d (a week)", MinMinutesBefore, MaxMinutesBefore))
	}
	t, err := s.templates.Get(ctx, templateID)
	if errors.Is(err, coupon.ErrNotFound) {
		return nil, coupon.NotFoundAt("templateId")
	}
	if err != nil {
		return nil, fmt.Errorf("load template %d: %w", templateID, err)
	}
	now := s.now()
	switch t.StatusAt(now) {
	case coupon.StatusEnded:
		return nil, coupon.Errorf(coupon.CodeEnded, "the template has ended")
	case coupon.StatusActive:
		return nil, coupon.Errorf(coupon.CodeInvalidState, "the template's claim window opened at %s: reminders are only for templates not started yet", t.ValidStart.UTC().Format(time.RFC3339))
	}
	remindAt := t.ValidStart.UTC().Truncate(time.Millisecond).Add(-time.Duration(minutesBefore) * time.Minute)
	if !remindAt.After(now) {
		most := int(t.ValidStart.Sub(now) / time.Minute)
		return nil, coupon.FieldError("minutesBefore", fmt.Sprintf("the reminder would be due at %s, in the past: the window opens in %d minute(s)",
			remindAt.Format(time.RFC3339), most))
	}
	var r *ent.CouponReminder
	for attempt := 0; ; attempt++ {
		r, err = s.arm(ctx, userID, templateID, channel, minutesBefore, remindAt)
		if err == nil || !store.IsLockConflict(err) || attempt == conflictRetries {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("set reminder: %w", err)
	}
	if err := s.sched.RemindBucket(context.WithoutCancel(ctx), templateID, BucketMinute(remindAt), remindAt); err != nil {
		slog.WarnContext(ctx, "reminder bucket task not queued; the reminder sweep sends it", "template", templateID,
			"remindAt", remindAt, "err", err)
	}
	return fromRow(r), nil
}

// arm inserts the reminder, or, when the (user, template, channel) row exists, re-arms it under
// its row lock unless it is already PENDING at remindAt. A duplicate key means a concurrent
// create inserted it first: that row is then re-armed (or kept) like any existing one.
func (s *Service) arm(ctx context.Context, userID, templateID int64, channel couponreminder.Channel, minutesBefore int, remindAt time.Time) (*ent.CouponReminder, error) {
	r, err := s.db.CouponReminder.Create().SetID(idgen.Next()).SetUserID(userID).SetTemplateID(templateID).
		SetChannel(channel).SetMinutesBefore(minutesBefore).SetRemindAt(remindAt).SetDueAt(remindAt).Save(ctx)
	if err == nil || !ent.IsConstraintError(err) {
		return r, err
	}
	err = store.WithTx(ctx, s.db, func(tx *ent.Tx) error {
		cur, err := tx.CouponReminder.Query().Where(mine(userID, templateID, channel)...).ForUpdate().Only(ctx)
		if err != nil {
			return err
		}
		if cur.Status == couponreminder.StatusPENDING && cur.RemindAt.Equal(remindAt) {
			r = cur
			return nil
		}
		r, err = cur.Update().SetMinutesBefore(minutesBefore).SetRemindAt(remindAt).SetDueAt(remindAt).
			SetStatus(couponreminder.StatusPENDING).AddVersion(1).SetAttempts(0).
			ClearFailureReason().ClearSentAt().Save(ctx)
		return err
	}, nil)
	return r, err
}

// Cancel cancels the user's reminder of a template on a channel and answers it as it stands: a
// PENDING one becomes CANCELED (it is not sent); a cancelled, sent, failed or skipped one is
// answered unchanged, so a repeated cancel answers the same. No such reminder → NOT_FOUND.
func (s *Service) Cancel(ctx context.Context, userID, templateID int64, channel couponreminder.Channel) (*Reminder, error) {
	if _, err := s.db.CouponReminder.Update().
		Where(append(mine(userID, templateID, channel), couponreminder.StatusEQ(couponreminder.StatusPENDING))...).
		SetStatus(couponreminder.StatusCANCELED).Save(ctx); err != nil {
		return nil, fmt.Errorf("cancel reminder: %w", err)
	}
	r, err := s.db.CouponReminder.Query().Where(mine(userID, templateID, channel)...).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, coupon.NotFoundAt("templateId")
	case err != nil:
		return nil, fmt.Errorf("read reminder: %w", err)
	}
	return fromRow(r), nil
}

// Mine returns the page k of the user's reminders (every status), newest first.
func (s *Service) Mine(ctx context.Context, userID int64, k coupon.Keyset) (coupon.Page[*Reminder], error) {
	total, err := s.db.CouponReminder.Query().Where(couponreminder.UserID(userID)).Count(ctx)
	if err != nil {
		return coupon.Page[*Reminder]{}, fmt.Errorf("count reminders: %w", err)
	}
	q := s.db.CouponReminder.Query().Where(couponreminder.UserID(userID))
	if k.After > 0 {
		q = q.Where(couponreminder.IDLT(k.After))
	}
	rows, err := q.Order(ent.Desc(couponreminder.FieldID)).Limit(k.Size + 1).All(ctx)
	if err != nil {
		return coupon.Page[*Reminder]{}, fmt.Errorf("list reminders: %w", err)
	}
	return coupon.NewPage(rows, coupon.Keyset{Size: k.Size, After: k.After}, total, fromRow), nil
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }

// mine selects the user's reminder of a template on a channel (the unique key).
func mine(userID, templateID int64, channel couponreminder.Channel) []predicate.CouponReminder {
	return []predicate.CouponReminder{couponreminder.UserID(userID), couponreminder.TemplateID(templateID), couponreminder.ChannelEQ(channel)}
}
