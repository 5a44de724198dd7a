package distribution

import (
	"context"
	"log/slog"
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
)

// announce tells the task's subscribers (Progress, on any instance) that it changed. A lost
// announcement only delays an update: Progress also looks every progressPoll.
func (s *Service) announce(ctx context.Context, id int64) {
	if err := s.rdb.Publish(context.WithoutCancel(ctx), keys.DistributionProgress(id), "1").Err(); err != nil {
		slog.WarnContext(ctx, "distribution progress not announced", "task", id, "err", err)
	}
}

// progressPoll is how often Progress looks at the task without an announcement.
const progressPoll = 2 * time.Second

// Progress streams the actor's task: as it is now, then each time it changes (announced at every
// committed batch and status change, looked at every progressPoll besides), and closes the
// channel after sending the task once it is done (Task.Done) or when ctx ends.
func (s *Service) Progress(ctx context.Context, actor coupon.Actor, id int64) (<-chan *Task, error) {
	first, err := s.Get(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	sub := s.rdb.Subscribe(ctx, keys.DistributionProgress(id))
	if _, err := sub.Receive(ctx); err != nil { // the subscription is confirmed before the first read
		sub.Close()
		return nil, err
	}
	out := make(chan *Task, 1)
	go func() {
		defer close(out)
		defer sub.Close()
		msgs := sub.Channel()
		tick := time.NewTicker(progressPoll)
		defer tick.Stop()
		t := first
		var last *Task
		for {
			if last == nil || changed(last, t) {
				select {
				case out <- t:
				case <-ctx.Done():
					return
				}
				last = t
			}
			if t.Done() {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-msgs:
			case <-tick.C:
			}
			next, err := s.Get(ctx, actor, id)
			if err != nil {
				if ctx.Err() == nil {
					slog.WarnContext(ctx, "distribution progress: read task", "task", id, "err", err)
				}
				continue
			}
			t = next
		}
	}()
	return out, nil
}

// changed reports whether b shows something a subscriber has not seen in a.
func changed(a, b *Task) bool {
	return a.Status != b.Status || a.ProcessedRows != b.ProcessedRows || a.CompletedAt != b.CompletedAt && (a.CompletedAt == nil || b.CompletedAt == nil) ||
		(a.SendNum == nil) != (b.SendNum == nil)
}
