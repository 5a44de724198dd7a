package distribution

import (
	"context"
	"errors"
	"fmt"

	"coupond/ent"
	"coupond/ent/coupontask"
)

// Count sets the task's send_num to its file's data rows, unless it is set already (the second,
// delayed count then does nothing). It reads at most MaxRows+1 rows: a file with more
// ends the task FAILED with the reason, before its first batch when the count comes first (the
// run counts itself otherwise, checkRows). A file that is gone or unreadable leaves send_num
// null: the run reports it.
func (s *Service) Count(ctx context.Context, id int64) error {
	t, err := s.db.CouponTask.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil || t.SendNum != nil {
		return err
	}
	path, remove, err := s.files.Fetch(ctx, t.FilePath)
	if errors.Is(err, errFileGone) {
		return nil
	}
	if err != nil {
		return err
	}
	defer remove()
	sh, err := OpenSheet(path, kindOf(t.FilePath), sheetOf(t), s.cfg.MaxUploadBytes)
	if err != nil {
		return nil // the run ends the task FAILED with the reason
	}
	defer sh.Close()
	n, err := sh.CountRows(s.cfg.MaxRows)
	switch {
	case err != nil:
		return nil
	case n > s.cfg.MaxRows:
		return s.fail(ctx, t, tooManyRows(s.cfg.MaxRows))
	}
	return s.db.CouponTask.Update().Where(coupontask.ID(id), coupontask.SendNumIsNil()).SetSendNum(n).Exec(ctx)
}

// checkRows is the row cap of a task about to write its first batch: its send_num, counted here
// on sh (then rewound) when no count came first. It returns the task with send_num set, or nil
// when the task has more than MaxRows data rows or its file cannot be read, and has then ended
// it FAILED with the reason.
func (s *Service) checkRows(ctx context.Context, t *ent.CouponTask, sh *Sheet) (*ent.CouponTask, error) {
	if t.SendNum == nil {
		n, err := sh.CountRows(s.cfg.MaxRows)
		if err == nil {
			err = sh.Rewind()
		}
		if err != nil {
			return nil, s.fail(ctx, t, "the file cannot be read any more: "+err.Error())
		}
		if n <= s.cfg.MaxRows {
			if err := s.db.CouponTask.Update().Where(coupontask.ID(t.ID), coupontask.SendNumIsNil()).SetSendNum(n).Exec(ctx); err != nil {
				return nil, err
			}
		}
		t.SendNum = &n
	}
	if *t.SendNum > s.cfg.MaxRows {
		return nil, s.fail(ctx, t, tooManyRows(s.cfg.MaxRows))
	}
	return t, nil
}

// tooManyRows is why a file over the row cap is refused or its task FAILED.
func tooManyRows(max int) string {
	return fmt.Sprintf("the file has more than %d data rows, the most one task takes: split it into several tasks", max)
}

// sheetOf is the worksheet the task reads ("": the first).
func sheetOf(t *ent.CouponTask) string {
	if t.SheetName == nil {
		return ""
	}
	return *t.SheetName
}
