package distribution

import (
	"context"
	"errors"

	"coupond/ent"
	"coupond/ent/coupontask"
)

// Count sets the task's send_num to its file's data rows, unless it is set already (the second,
// delayed count of D-22 then does nothing). A file that is gone or unreadable leaves send_num
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
	sheet := ""
	if t.SheetName != nil {
		sheet = *t.SheetName
	}
	sh, err := OpenSheet(path, kindOf(t.FilePath), sheet)
	if err != nil {
		return nil // the run ends the task FAILED with the reason
	}
	defer sh.Close()
	n := 0
	for _, ok := sh.Next(); ok; _, ok = sh.Next() {
		n++
	}
	if sh.Err() != nil {
		return nil
	}
	return s.db.CouponTask.Update().Where(coupontask.ID(id), coupontask.SendNumIsNil()).SetSendNum(n).Exec(ctx)
}
