package distribution

import (
	"context"
	"fmt"
	"io"

	"github.com/xuri/excelize/v2"
)

// reportPage is how many failure rows WriteReport reads per query.
const reportPage = 5000

// reportSheetRows is how many rows one sheet of the report holds, its header included: Excel's
// limit (excelize.TotalRows). The tests lower it to see a report go on to a second sheet.
var reportSheetRows = excelize.TotalRows

// WriteReport writes the failure report of the task to w: an .xlsx whose sheets have a header
// row and, per failed row in row order, its row number, the user id as written, the code and the
// reason; past reportSheetRows rows a sheet is full and the report goes on in the next one
// (Sheet2, Sheet3, …). It streams (excelize's StreamWriter, failures read page by page), so a
// report of a million rows does not sit in memory. The caller has checked the task is the
// actor's (Get).
func (s *Service) WriteReport(ctx context.Context, taskID int64, w io.Writer) error {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := newReportSheet(f, f.GetSheetName(0))
	if err != nil {
		return err
	}
	sheets, line, after := 1, 2, 0
	for {
		page, more, err := s.Failures(ctx, taskID, after, reportPage)
		if err != nil {
			return err
		}
		for _, r := range page {
			if line > reportSheetRows {
				if err := sw.Flush(); err != nil {
					return err
				}
				sheets++
				name := fmt.Sprintf("Sheet%d", sheets)
				if _, err := f.NewSheet(name); err != nil {
					return err
				}
				if sw, err = newReportSheet(f, name); err != nil {
					return err
				}
				line = 2
			}
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

// newReportSheet starts writing the sheet named name with the report's header row.
func newReportSheet(f *excelize.File, name string) (*excelize.StreamWriter, error) {
	sw, err := f.NewStreamWriter(name)
	if err != nil {
		return nil, err
	}
	return sw, sw.SetRow("A1", []any{"row", "userId", "code", "reason"})
}
