package distribution

import "github.com/xuri/excelize/v2"

// SetStep makes s call fn after each step of a batch ("deducted", "committed", "after-commit").
func (s *Service) SetStep(fn func(name string)) { s.step = fn }

// SetReportSheetRows makes the failure report's sheets hold n rows (header included) until the
// returned function restores Excel's limit.
func SetReportSheetRows(n int) (restore func()) {
	reportSheetRows = n
	return func() { reportSheetRows = excelize.TotalRows }
}
