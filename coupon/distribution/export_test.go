package distribution

import (
	promtest "github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/xuri/excelize/v2"
)

// SetReportSheetRows makes the failure report's sheets hold n rows (header included) until the
// returned function restores Excel's limit.
func SetReportSheetRows(n int) (restore func()) {
	reportSheetRows = n
	return func() { reportSheetRows = excelize.TotalRows }
}

// SheetRowsRead is coupond_distribution_sheet_rows_read_total: rows read from files so far.
func SheetRowsRead() int { return int(promtest.ToFloat64(sheetRowsRead)) }
