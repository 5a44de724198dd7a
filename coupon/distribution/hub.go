package distribution

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"coupond/coupon/keys"
	"coupond/ent"
)

// progressHub follows tasks for every subscriber of this process: one Redis subscription (a
// pub/sub connection opened with the first followed task and closed with the last) carries the
// announcements of all followed tasks, and one watch per task reads the task once per
// announcement (and every progressPoll) for all of that task's subscribers. go-redis reconnects
// the subscription after a Redis restart and subscribes its channels again; each confirmation
// makes a read too, so a change whose announcement was lost while Redis was away is pushed
// without waiting for the next poll. Its zero value is ready to use.
type progressHub struct {
	poll time.Duration // how often a followed task is read without an announcement; 0: progressPoll

	mu      sync.Mutex
	sub     *redis.PubSub
	watches map[string]*watch // by announcement channel
}

// A watch is the latest state of one followed task, shared by its subscribers.
type watch struct {
	id     int64
	refs   int // subscribers (under the hub's mu)
	poke   chan struct{}
	cancel context.CancelFunc

	mu     sync.Mutex
	loads  uint64        // reads of the task begun
	latest *Task         // the task as last read (nil before a read)
	seq    uint64        // which read latest is
	wake   chan struct{} // closed at the next read
}

// follow returns the watch of task id, started when it is the first subscriber's, and the
// function that ends this subscriber's interest (the last one stops the watch).
func (h *progressHub) follow(rdb redis.UniversalClient, db *ent.Client, id int64) (*watch, func()) {
	ch := keys.DistributionProgress(id)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sub == nil {
		h.sub = rdb.Subscribe(context.Background())
		h.watches = map[string]*watch{}
		go h.dispatch(h.sub.ChannelWithSubscriptions())
	}
	w := h.watches[ch]
	if w == nil {
		ctx, cancel := context.WithCancel(context.Background())
		w = &watch{id: id, poke: make(chan struct{}, 1), cancel: cancel, wake: make(chan struct{})}
		h.watches[ch] = w
		if err := h.sub.Subscribe(ctx, ch); err != nil { // kept: resubscribed on reconnect
			slog.WarnContext(ctx, "distribution progress: subscribe", "task", id, "err", err)
		}
		go w.run(ctx, db, cmp.Or(h.poll, progressPoll))
	}
	w.refs++
	var once sync.Once
	return w, func() { once.Do(func() { h.unfollow(ch, w) }) }
}

// unfollow ends one subscriber's interest in w: the last one stops w and unsubscribes its
// channel, and the last followed task closes the Redis subscription.
func (h *progressHub) unfollow(ch string, w *watch) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w.refs--; w.refs > 0 {
		return
	}
	w.cancel()
	delete(h.watches, ch)
	if len(h.watches) > 0 {
		if err := h.sub.Unsubscribe(context.Background(), ch); err != nil {
			slog.Warn("distribution progress: unsubscribe", "task", w.id, "err", err)
		}
		return
	}
	h.sub.Close() // the last followed task: the connection goes too
	h.sub = nil
}

// dispatch pokes the watch of each announced task, and of each task whose channel Redis
// confirms subscribed (first, and again after a reconnect), until the subscription is closed.
func (h *progressHub) dispatch(msgs <-chan any) {
	for m := range msgs {
		var ch string
		switch m := m.(type) {
		case *redis.Message:
			ch = m.Channel
		case *redis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			ch = m.Channel
		}
		h.mu.Lock()
		w := h.watches[ch]
		h.mu.Unlock()
		if w != nil {
			select {
			case w.poke <- struct{}{}:
			default: // a read is already due
			}
		}
	}
}

// run reads the task at each announcement and every poll until ctx ends (its last subscriber
// left), waking the subscribers after each read.
func (w *watch) run(ctx context.Context, db *ent.Client, poll time.Duration) {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.poke:
		case <-tick.C:
		}
		w.mu.Lock()
		w.loads++
		seq := w.loads
		w.mu.Unlock()
		t, err := db.CouponTask.Get(ctx, w.id)
		if err != nil {
			if ctx.Err() == nil && !ent.IsNotFound(err) { // not found: its subscriber is refused and leaves
				slog.WarnContext(ctx, "distribution progress: read task", "task", w.id, "err", err)
			}
			continue
		}
		w.mu.Lock()
		w.latest, w.seq = &Task{t}, seq
		close(w.wake)
		w.wake = make(chan struct{})
		w.mu.Unlock()
	}
}

// mark returns how many reads have begun and the channel closed at the next read: a subscriber
// that reads the task itself after mark is woken by every later read, and a read numbered at
// most the mark may be older than its own (a read begun later comes within progressPoll).
func (w *watch) mark() (uint64, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.loads, w.wake
}

// current returns the task as last read, which read that was, and the channel closed at the next.
func (w *watch) current() (*Task, uint64, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.latest, w.seq, w.wake
}
