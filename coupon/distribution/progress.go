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

// progressPoll is how often a followed task is read without an announcement.
const progressPoll = 2 * time.Second

// Progress streams the actor's task: as it is now, then each time it changes (announced at every
// committed batch and status change, looked at every progressPoll besides), and closes the
// channel after sending the task once it is done (Task.Done) or when ctx ends. The subscribers
// of a task share one read of it per change, and all tasks followed by this process share one
// Redis subscription (progressHub); a subscriber that reads slower than the task changes gets
// its latest state, never an older one after a newer.
func (s *Service) Progress(ctx context.Context, actor coupon.Actor, id int64) (<-chan *Task, error) {
	w, release := s.progress.follow(s.rdb, s.db, id)
	seen, wake := w.mark() // before the first read: every later change wakes this subscriber
	first, err := s.Get(ctx, actor, id)
	if err != nil {
		release()
		return nil, err
	}
	out := make(chan *Task, 1)
	go func() {
		defer close(out)
		defer release()
		t, last := first, (*Task)(nil)
		for {
			if t != nil && (last == nil || changed(last, t)) {
				select {
				case out <- t:
				case <-ctx.Done():
					return
				}
				last = t
			}
			if last.Done() {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-wake:
			}
			var seq uint64
			if t, seq, wake = w.current(); seq <= seen {
				t = nil // read before this subscriber's own first read: not newer than it
			}
		}
	}()
	return out, nil
}

// changed reports whether b shows something a subscriber has not seen in a.
func changed(a, b *Task) bool {
	return a.Status != b.Status || a.ProcessedRows != b.ProcessedRows || a.CompletedAt != b.CompletedAt && (a.CompletedAt == nil || b.CompletedAt == nil) ||
		(a.SendNum == nil) != (b.SendNum == nil)
}
