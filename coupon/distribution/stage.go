package distribution

// stage is one step of the batches (a T1, or the writes) run on its own goroutine while the run
// goes on with the next batch: at most one batch in it at a time.
type stage struct {
	done     chan struct{} // closed when the batch's goroutine ends; nil: none in flight
	err      error
	panicked any
}

// start runs fn, the stage's work on a batch, on a new goroutine. The batch before it must have been waited for.
func (w *stage) start(fn func() error) {
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

// wait waits for the batch in the stage, if any, and returns how its work ended; a panic in them
// is raised again here, as if they had run on the caller's goroutine (asynq recovers a task's
// panics there).
func (w *stage) wait() error {
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

// abandon waits for the batch in the stage, if any, without looking at how it ended: a run that
// returns early never leaves a batch's work running behind it.
func (w *stage) abandon() {
	if w.done != nil {
		<-w.done
	}
}
