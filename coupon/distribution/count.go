package distribution

import (
	"context"
	"fmt"

	"coupond/ent"
	"coupond/ent/coupontask"
)

// checkRows is the row cap of a task about to write its first batch, read without a pass over
// the rows where it can be: a task counted at upload (a CSV) is checked against its send_num; an
// .xlsx whose declared range (Sheet.DataRowsAtMost) holds no more than MaxRows data rows needs
// nothing more. Only one whose range may hold more is counted here, on sh (then rewound): a
// second pass, for a file at the cap alone. A file without a range worth trusting is not counted:
// the reader holds the cap (rowReader.nextBatch). It returns the task (send_num set when counted
// here), or nil when the task has more than MaxRows data rows or its file cannot be read, and has
// then ended it FAILED with the reason.
func (s *Service) checkRows(ctx context.Context, t *ent.CouponTask, sh *Sheet) (*ent.CouponTask, error) {
	if bound, ok := sh.DataRowsAtMost(); t.SendNum == nil && ok && bound > s.cfg.MaxRows {
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
	if t.SendNum != nil && *t.SendNum > s.cfg.MaxRows {
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
