package distribution

// writes is the batch being written and settled on its own goroutine (finishWrites) while the
// run reserves the next one: at most one at a time.
type writes struct {
	done     chan struct{} // closed when the batch's goroutine ends; nil: none in flight
	err      error
	panicked any
}

// start runs fn, a batch's writes, on a new goroutine. The batch before it must have been waited for.
func (w *writes) start(fn func() error) {
	done := make(chan struct{})
	w.done = done
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				w.panicked = p
			}
		}()
		w.err = fn()
	}()
}

// wait waits for the batch in flight, if any, and returns how its writes ended; a panic in them
// is raised again here, as if they had run on the caller's goroutine (asynq recovers a task's
// panics there).
func (w *writes) wait() error {
	if w.done == nil {
		return nil
	}
	<-w.done
	w.done = nil
	err, p := w.err, w.panicked
	w.err, w.panicked = nil, nil
	if p != nil {
		panic(p)
	}
	return err
}

// abandon waits for the batch in flight, if any, without looking at how it ended: a run that
// returns early never leaves a batch's writes running behind it.
func (w *writes) abandon() {
	if w.done != nil {
		<-w.done
	}
}
