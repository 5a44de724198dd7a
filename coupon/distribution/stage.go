package distribution

import (
	"context"
	"errors"

	"coupond/ent"
)

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

// pipeline is the stages a deducted batch passes through, in file order, one batch in each at a
// time: reserving (T1, reserveBatch), writing (T2s, writeBatch), settling (T3 and after-commit,
// settleBatch). Each stage hands its batch to the next once that one is free. The run calls
// reserve, drain and abandon from its one goroutine; the stages touch only the stages after them.
type pipeline struct {
	s                            *Service
	ctx                          context.Context
	task                         *ent.CouponTask // the run's task (its id, shop and template)
	reserving, writing, settling stage
	reserved                     *ent.CouponTask // the task as the last T1 left it; read after drain
}

// reserve waits for the batch before p to leave the reserving stage, then starts p's T1 there;
// an error is the earlier batches'.
func (pl *pipeline) reserve(p *pending) error {
	if err := pl.reserving.wait(); err != nil {
		return err
	}
	pl.reserving.start(func() error {
		// A T1 put off while a batch of the template is open waits for the writes before it.
		settle := func() error { return errors.Join(pl.writing.wait(), pl.settling.wait()) }
		if err := pl.s.reserveBatch(pl.ctx, pl.task, p, settle); err != nil {
			return err
		}
		pl.reserved = p.task
		return pl.write(p)
	})
	return nil
}

// write hands p to the writing stage once it is free.
func (pl *pipeline) write(p *pending) error {
	if err := pl.writing.wait(); err != nil {
		return err
	}
	pl.writing.start(func() error {
		if err := pl.s.writeBatch(pl.ctx, p); err != nil {
			return err
		}
		return pl.settle(p)
	})
	return nil
}

// settle hands p to the settling stage once it is free.
func (pl *pipeline) settle(p *pending) error {
	if err := pl.settling.wait(); err != nil {
		return err
	}
	pl.settling.start(func() error { return pl.s.settleBatch(pl.ctx, p) })
	return nil
}

// drain waits for every batch in the stages and returns the task as the last T1 left it, or the
// first error.
func (pl *pipeline) drain() (*ent.CouponTask, error) {
	err := pl.reserving.wait()
	if err == nil {
		err = pl.writing.wait()
	}
	if err == nil {
		err = pl.settling.wait()
	}
	return pl.reserved, err
}

// abandon waits for every batch in the stages without looking at how they ended.
func (pl *pipeline) abandon() {
	pl.reserving.abandon()
	pl.writing.abandon()
	pl.settling.abandon()
}
