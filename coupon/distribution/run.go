package distribution

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"coupond/coupon"
	"coupond/coupon/keys"
	"coupond/coupon/lease"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/coupontask"
	"coupond/ent/coupontemplate"
	"coupond/store"
)

// Run executes task id, or resumes it where its last committed batch ended. One worker runs a
// task at a time (a lease); Run returns nil at once when another holds it, or when the task has
// nothing left to do. It first finishes the batches a killed worker left journaled (writing and
// settling those it had reserved, doing their after-commit work if only that was left; the ones
// (two at most) it had not reserved are committed first thing), then streams the remaining rows batch by batch. A CANCELED task stops at the next batch boundary; a task whose
// template ended or whose file is gone before it started ends FAILED with the reason.
func (s *Service) Run(ctx context.Context, id int64) error {
	ctx, release, err := lease.Take(ctx, s.rdb, keys.DistributionLease(id), s.cfg.LeaseTTL)
	if release == nil || err != nil {
		return err
	}
	defer release()
	t, err := s.db.CouponTask.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ss, err := s.stockShardsOf(ctx, t)
	if err != nil {
		return err
	}
	journals, err := s.journals(ctx, t.ID, ss)
	if err != nil {
		return err
	}
	pending := 0 // batches journaled, not reserved: commit them whatever the status
	for _, j := range journals {
		if j.start >= t.ResumeRow {
			pending++
			continue
		}
		if err := s.afterCommitFromDB(ctx, t, ss, j); err != nil {
			return err
		}
	}
	if pending == 0 {
		switch t.Status {
		case coupontask.StatusSUCCESS, coupontask.StatusFAILED:
			return nil
		case coupontask.StatusCANCELED:
			return s.acknowledgeCancel(ctx, t)
		case coupontask.StatusPENDING:
			if t.SendTime != nil && t.SendTime.After(s.now()) {
				return nil // queued early (by hand): the scheduled run comes at sendTime
			}
			if t, err = s.start(ctx, t); t == nil || err != nil {
				return err
			}
		}
	}
	return s.execute(ctx, t, ss, pending)
}

// start moves a PENDING task to IN_PROGRESS, or ends it FAILED when its template has ended; it
// returns nil when another run changed the task first.
func (s *Service) start(ctx context.Context, t *ent.CouponTask) (*ent.CouponTask, error) {
	tpl, err := s.db.CouponTemplate.Query().Where(coupontemplate.ID(t.TemplateID)).Only(ctx)
	if err != nil {
		return nil, fmt.Errorf("template of task %d: %w", t.ID, err)
	}
	if tpl.Status == coupontemplate.StatusENDED || !s.now().Before(tpl.ValidEndTime) {
		return nil, s.fail(ctx, t, "the template ended before the task started")
	}
	n, err := s.db.CouponTask.Update().Where(coupontask.ID(t.ID), coupontask.ShopNumber(t.ShopNumber), coupontask.StatusEQ(coupontask.StatusPENDING)).
		SetStatus(coupontask.StatusIN_PROGRESS).Save(ctx)
	if err != nil || n == 0 {
		return nil, err
	}
	s.announce(ctx, t.ID)
	return s.db.CouponTask.Query().Where(coupontask.ID(t.ID), coupontask.ShopNumber(t.ShopNumber)).Only(ctx)
}

// fail ends a task that could not run FAILED, with the reason.
func (s *Service) fail(ctx context.Context, t *ent.CouponTask, reason string) error {
	err := s.end(ctx, t, func(tx *ent.Tx) (int, error) {
		return tx.CouponTask.Update().
			Where(coupontask.ID(t.ID), coupontask.ShopNumber(t.ShopNumber), coupontask.StatusIn(coupontask.StatusPENDING, coupontask.StatusIN_PROGRESS)).
			SetStatus(coupontask.StatusFAILED).SetFailureReason(reason).SetCompletedAt(s.now()).Save(ctx)
	})
	s.announce(ctx, t.ID)
	return err
}

// acknowledgeCancel records that a canceled task's worker has stopped (completed_at).
func (s *Service) acknowledgeCancel(ctx context.Context, t *ent.CouponTask) error {
	if t.CompletedAt != nil {
		return nil
	}
	err := s.end(ctx, t, func(tx *ent.Tx) (int, error) {
		return tx.CouponTask.Update().Where(coupontask.ID(t.ID), coupontask.ShopNumber(t.ShopNumber), coupontask.CompletedAtIsNil()).
			SetCompletedAt(s.now()).Save(ctx)
	})
	s.announce(ctx, t.ID)
	return err
}

// execute opens the task's file once and streams it, once, from its resume position (the rows
// before it only skipped), after the row cap (checkRows) when no batch was written yet. Five
// things overlap, each batch passing through them in file order, one batch in each at a time: a
// reader goroutine parses the batches ahead (rowReader.readAhead), this goroutine deducts the next
// batch in Redis (deductBatch), and the three stages of a pipeline (stage.go) do the T1 of the
// batch before it, the T2s of the one before that, and the T3 and after-commit work of the one
// before. So at most two batches are journaled and not reserved when a worker dies. pending: the
// first batches (as many) were journaled by a run that died before reserving them; they are
// committed whatever the task's status. ss: the template's stock shards.
func (s *Service) execute(ctx context.Context, t *ent.CouponTask, ss stockShards, pending int) error {
	path, remove, err := s.files.Fetch(ctx, t.FilePath)
	if errors.Is(err, errFileGone) {
		return s.fail(ctx, t, "the uploaded file is gone")
	}
	if err != nil {
		return err
	}
	defer remove()
	sh, err := OpenSheet(path, kindOf(t.FilePath), sheetOf(t), s.cfg.MaxUploadBytes)
	if err != nil {
		return s.fail(ctx, t, "the file cannot be read any more: "+err.Error())
	}
	defer sh.Close()
	if t.ResumeRow == 0 && pending == 0 {
		if t, err = s.checkRows(ctx, t, sh); t == nil || err != nil {
			return err
		}
	}
	rr := s.newRowReader(sh)
	if err := rr.skipTo(t.ResumeRow); err != nil {
		return err
	}
	batches, stopReading := rr.readAhead(t.ResumeRow)
	defer stopReading()
	pl := &pipeline{s: s, ctx: ctx, task: t, reserved: t}
	defer pl.abandon()
	next := t.ResumeRow
	for {
		if pending == 0 {
			c, err := s.canceled(ctx, t.ID)
			if err != nil {
				return err
			}
			if c != nil {
				if _, err := pl.drain(); err != nil {
					return err
				}
				return s.acknowledgeCancel(ctx, c)
			}
		}
		b := <-batches
		if len(b.rows) > 0 {
			if b.start != next {
				return fmt.Errorf("task %d: batch after row %d read, resume position is %d", t.ID, b.start, next)
			}
			p, err := s.deductBatch(ctx, t, ss, b)
			if err != nil {
				return err
			}
			if err := pl.reserve(p); err != nil {
				return err
			}
			next, pending = b.end, max(pending-1, 0)
		}
		if b.fail == "" && len(b.rows) > 0 {
			continue
		}
		last, err := pl.drain()
		if err != nil {
			return err
		}
		if b.fail != "" {
			return s.fail(ctx, last, b.fail)
		}
		return s.finish(ctx, last)
	}
}

// kindOf is the kind of a stored file, from the name we gave it.
func kindOf(key string) Kind {
	if len(key) > 4 && key[len(key)-4:] == ".csv" {
		return KindCSV
	}
	return KindXLSX
}

// canceled returns the task when it was canceled, nil otherwise.
func (s *Service) canceled(ctx context.Context, id int64) (*ent.CouponTask, error) {
	t, err := s.db.CouponTask.Get(ctx, id)
	if err != nil || t.Status != coupontask.StatusCANCELED {
		return nil, err
	}
	slog.InfoContext(ctx, "distribution task stops at a batch boundary: canceled", "task", id, "row", t.ResumeRow)
	return t, nil
}

// finish ends a task whose every data row is accounted for: SUCCESS, with send_num set to the
// rows processed when the upload did not count them (an .xlsx: this run was its count).
func (s *Service) finish(ctx context.Context, t *ent.CouponTask) error {
	err := s.end(ctx, t, func(tx *ent.Tx) (int, error) {
		upd := tx.CouponTask.Update().Where(coupontask.ID(t.ID), coupontask.ShopNumber(t.ShopNumber), coupontask.StatusEQ(coupontask.StatusIN_PROGRESS)).
			SetStatus(coupontask.StatusSUCCESS).SetCompletedAt(s.now())
		if t.SendNum == nil {
			upd.SetSendNum(t.ProcessedRows)
		}
		return upd.Save(ctx)
	})
	if err != nil {
		return err
	}
	if c, err := s.canceled(ctx, t.ID); c != nil || err != nil { // canceled after the last batch
		if err != nil {
			return err
		}
		if err := s.acknowledgeCancel(ctx, c); err != nil {
			return err
		}
	}
	s.announce(ctx, t.ID)
	return nil
}

// end runs update, which ends task (FAILED, SUCCESS, or a canceled task's stop) and tells how
// many rows it changed, and when it changed the row records the end in the template's audit
// trail (TASK_END, by the system, with the task's counts), in one transaction: an end replayed
// by a resumed run changes nothing and records nothing.
func (s *Service) end(ctx context.Context, task *ent.CouponTask, update func(tx *ent.Tx) (int, error)) error {
	return store.WithTx(ctx, s.db, func(tx *ent.Tx) error {
		n, err := update(tx)
		if err != nil || n == 0 {
			return err
		}
		t, err := tx.CouponTask.Query().Where(coupontask.ID(task.ID), coupontask.ShopNumber(task.ShopNumber)).Only(ctx)
		if err != nil {
			return err
		}
		return auditTask(ctx, tx, coupon.Actor{}, t, template.ActionTaskEnd)
	}, nil)
}
