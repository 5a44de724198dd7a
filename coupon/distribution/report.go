package distribution

import (
	"context"
	"fmt"
	"io"

	"github.com/xuri/excelize/v2"
)

// reportPage is how many failure rows WriteReport reads per query.
const reportPage = 5000

// WriteReport writes the failure report of the task to w: an .xlsx whose first sheet has a
// header row and, per failed row in row order, its row number, the user id as written, the code
// and the reason. It streams (excelize's StreamWriter, failures read page by page), so a report
// of a million rows does not sit in memory. The caller has checked the task is the actor's (Get).
func (s *Service) WriteReport(ctx context.Context, taskID int64, w io.Writer) error {
	f := excelize.NewFile()
	defer f.Close()
	sheet := f.GetSheetName(0)
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	if err := sw.SetRow("A1", []any{"row", "userId", "code", "reason"}); err != nil {
		return err
	}
	line, after := 2, 0
	for {
		page, more, err := s.Failures(ctx, taskID, after, reportPage)
		if err != nil {
			return err
		}
		for _, r := range page {
			user := ""
			if r.UserID != nil {
				user = *r.UserID
			}
			// the id as text: a 19-digit id stays exact in the report
			if err := sw.SetRow(fmt.Sprintf("A%d", line), []any{r.RowNum, user, r.Code, r.Reason}); err != nil {
				return err
			}
			line++
			after = r.RowNum
		}
		if !more {
			break
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	_, err = f.WriteTo(w)
	return err
}
