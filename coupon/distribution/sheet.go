package distribution

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/xuri/excelize/v2"

	"coupond/coupon"
)

// Kind is a file's format, told from its content (sniff.go).
type Kind string

// The formats accepted.
const (
	KindXLSX Kind = "xlsx"
	KindCSV  Kind = "csv"
)

// userIDHeaders are the header names of the user-id column, normalised (normHeader).
var userIDHeaders = map[string]bool{"userid": true, "user_id": true, "用户id": true}

// normHeader lowers s and drops its spaces: " User ID " and "userid" are the same header.
func normHeader(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// unzipInMemory is the largest worksheet or shared-strings part of an .xlsx excelize keeps in
// memory; larger ones are unpacked to temporary files and read from there, so a million text ids
// do not sit in the worker's heap.
const unzipInMemory = 4 << 20

// sheetXMLMultiple is how many times the upload cap an .xlsx's worksheets and shared strings
// (those unpacked to temporary files) may unpack to in all: Excel's sheet XML of a list of ids
// compresses about 5 to 10 times, so a workbook at the cap fits, and a zip bomb is refused from
// its directory before a byte is unpacked.
const sheetXMLMultiple = 16

// otherPartsLimit is what everything excelize unpacks into memory (the workbook, styles,
// relationships, media, small worksheets) may unpack to in all: a list of user ids needs a few
// hundred KiB of it.
const otherPartsLimit = 32 << 20

// lineSource yields a file's rows one at a time: each row's 1-based number and its cells.
type lineSource interface {
	next() (num int, cells []string, err error) // io.EOF after the last row
	rewind() error                              // back to the first row
	lastRow() int                               // the last row's number as the file declares it; 0: unknown
	close() error
}

// Sheet reads the data rows of a stored file one at a time, in constant memory: excelize's row
// iterator for .xlsx (raw cell values, so display formats such as #,##0 do not show; a formula's
// cached value), encoding/csv for .csv (UTF-8, a BOM skipped). The user-id column is the one whose
// header is userId, user_id or 用户ID (case and spaces ignored); without such a header, column A,
// and then the first row is data. Blank rows are skipped and not counted. Every row read from the
// file, however often, counts in coupond_distribution_sheet_rows_read_total.
type Sheet struct {
	src    lineSource
	col    int
	first  *Row // a data row read while looking for the header
	rowErr error
}

// OpenSheet opens the file at path, of kind, reading the worksheet named sheet ("" for the first).
// An .xlsx may unpack to what maxUpload, the upload cap, allows (sheetXMLMultiple,
// otherPartsLimit), checked from its zip directory before excelize unpacks anything. A file that
// cannot be read, a missing sheet, no data row or no user-id column is a coupon.CodeFileInvalid
// error whose message a merchant understands.
func OpenSheet(path string, kind Kind, sheet string, maxUpload int64) (*Sheet, error) {
	var src lineSource
	var err error
	switch kind {
	case KindXLSX:
		src, err = openXLSX(path, sheet, maxUpload)
	case KindCSV:
		src, err = openCSV(path)
	default:
		err = fileInvalid("only .xlsx and .csv files can be read")
	}
	if err != nil {
		return nil, err
	}
	s := &Sheet{src: src}
	if err := s.findColumn(); err != nil {
		src.close()
		return nil, err
	}
	return s, nil
}

func fileInvalid(format string, args ...any) error {
	return coupon.Errorf(coupon.CodeFileInvalid, format, args...)
}

// findColumn reads up to the first non-blank row and decides the user-id column.
func (s *Sheet) findColumn() error {
	for {
		num, cells, err := s.read()
		if errors.Is(err, io.EOF) {
			return fileInvalid("the file has no rows with user ids")
		}
		if err != nil {
			return err
		}
		if blank(cells) {
			continue
		}
		for i, c := range cells {
			if userIDHeaders[normHeader(c)] {
				s.col = i
				return s.peekData()
			}
		}
		if _, reason := parseUserID(cells[0]); reason != "" {
			return fileInvalid("no user-id column: name its header userId, user_id or 用户ID, or put the ids in column A without a header (row %d, column A holds %q)", num, asWritten(cells[0]))
		}
		r := s.row(num, cells)
		s.first = &r
		return nil
	}
}

// peekData reads the first data row after the header into s.first.
func (s *Sheet) peekData() error {
	r, ok := s.Next()
	if !ok {
		if s.rowErr != nil {
			return s.rowErr
		}
		return fileInvalid("the file has no rows with user ids below its header")
	}
	s.first = &r
	return nil
}

// Next returns the next data row; ok is false after the last one (or on an error, see Err).
func (s *Sheet) Next() (Row, bool) {
	if s.first != nil {
		r := *s.first
		s.first = nil
		return r, true
	}
	for {
		num, cells, err := s.read()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.rowErr = err
			}
			return Row{}, false
		}
		if !blank(cells) {
			return s.row(num, cells), true
		}
	}
}

// read is the source's next row, counted in sheetRowsRead.
func (s *Sheet) read() (int, []string, error) {
	num, cells, err := s.src.next()
	if err == nil {
		sheetRowsRead.Inc()
	}
	return num, cells, err
}

// DataRowsAtMost is an upper bound of the data rows from the first one on, from the sheet's
// declared range (an .xlsx's <dimension>, read without reading the rows), and whether the file
// declares one worth trusting: Excel and LibreOffice keep it exact, while some writers (excelize)
// leave "A1" whatever the rows, which counts as none. A file may lie, so the reader still holds
// the row cap itself (batch.go).
func (s *Sheet) DataRowsAtMost() (int, bool) {
	last := s.src.lastRow()
	if last <= 1 || s.first == nil || s.first.Num > last {
		return 0, false
	}
	return last - s.first.Num + 1, true
}

// Err is the error that ended Next early, if any.
func (s *Sheet) Err() error { return s.rowErr }

// Close releases the file.
func (s *Sheet) Close() error { return s.src.close() }

// Rewind goes back to the first data row, without opening the file again.
func (s *Sheet) Rewind() error {
	s.first, s.rowErr = nil, nil
	if err := s.src.rewind(); err != nil {
		return err
	}
	return s.findColumn()
}

// CountRows reads data rows until the end or until there are more than limit of them, and
// returns how many it read; the sheet is then spent (Rewind).
func (s *Sheet) CountRows(limit int) (int, error) {
	n := 0
	for _, ok := s.Next(); ok; _, ok = s.Next() {
		if n++; n > limit {
			break
		}
	}
	return n, s.Err()
}

func (s *Sheet) row(num int, cells []string) Row {
	raw := ""
	if s.col < len(cells) {
		raw = cells[s.col]
	}
	r := Row{Num: num, Raw: asWritten(raw)}
	if id, reason := parseUserID(raw); reason != "" {
		r.Code, r.Reason = CodeInvalidUserID, reason
	} else {
		r.UserID = id
	}
	return r
}

// blank reports whether every cell is empty or spaces.
func blank(cells []string) bool {
	for _, c := range cells {
		if strings.TrimFunc(c, unicode.IsSpace) != "" {
			return false
		}
	}
	return true
}

// xlsxSource is excelize's row iterator over one worksheet.
type xlsxSource struct {
	f     *excelize.File
	sheet string
	rows  *excelize.Rows
	num   int
	last  int // the worksheet's <dimension> last row; 0: none
}

func openXLSX(path, sheet string, maxUpload int64) (lineSource, error) {
	sheetXML := sheetXMLMultiple * maxUpload
	if err := checkUnzipSizes(path, sheetXML); err != nil {
		return nil, err
	}
	// RawCellValue for the whole file, so Columns takes no options: given per call, excelize copies
	// them to the heap for every row.
	f, err := excelize.OpenFile(path, excelize.Options{UnzipSizeLimit: sheetXML + otherPartsLimit, UnzipXMLSizeLimit: unzipInMemory, RawCellValue: true})
	if err != nil {
		if errors.Is(err, excelize.ErrWorkbookFileFormat) || strings.Contains(err.Error(), "zip") {
			return nil, fileInvalid("the file is not a readable .xlsx workbook (damaged, or not saved as Excel 2007-365)")
		}
		return nil, fileInvalid("the workbook cannot be read: %s", shortErr(err))
	}
	sheets := f.GetSheetList()
	if sheet == "" && len(sheets) > 0 {
		sheet = sheets[0]
	}
	rows, err := f.Rows(sheet)
	if err != nil {
		f.Close()
		if len(sheets) == 0 {
			return nil, fileInvalid("the workbook has no worksheet")
		}
		return nil, fileInvalid("the workbook has no worksheet named %q (it has %s)", sheet, strings.Join(sheets, ", "))
	}
	return &xlsxSource{f: f, sheet: sheet, rows: rows, last: dimensionLastRow(f, sheet)}, nil
}

// dimensionLastRow is the last row of the worksheet's declared range (<dimension ref="A1:C21">:
// 21), which excelize reads from the sheet's XML up to <sheetData> and no further; 0 when the
// sheet declares none.
func dimensionLastRow(f *excelize.File, sheet string) int {
	ref, err := f.GetSheetDimension(sheet)
	if err != nil || ref == "" {
		return 0
	}
	_, last, _ := strings.Cut(ref, ":")
	if last == "" {
		last = ref
	}
	_, row, err := excelize.CellNameToCoordinates(last)
	if err != nil {
		return 0
	}
	return row
}

// checkUnzipSizes refuses an .xlsx whose zip directory declares more than sheetXML bytes of the
// parts excelize unpacks to temporary files (worksheets and shared strings over unzipInMemory)
// or more than otherPartsLimit of the parts it unpacks into memory. It reads only the
// directory; Go's zip reader fails a part that unpacks to more than it declares.
func checkUnzipSizes(path string, sheetXML int64) error {
	z, err := zip.OpenReader(path)
	if err != nil {
		return fileInvalid("the file is not a readable .xlsx workbook (damaged, or not saved as Excel 2007-365)")
	}
	defer z.Close()
	var onDisk, inMemory uint64
	for _, f := range z.File {
		name := strings.ToLower(strings.ReplaceAll(f.Name, `\`, "/"))
		big := f.UncompressedSize64 > unzipInMemory
		if big && (strings.HasPrefix(name, "xl/worksheets/sheet") || name == "xl/sharedstrings.xml") {
			onDisk += f.UncompressedSize64
		} else {
			inMemory += f.UncompressedSize64
		}
		switch {
		case onDisk > uint64(sheetXML):
			return fileInvalid("the workbook's sheets unpack to more than %d MiB: it is not a list of user ids", sheetXML>>20)
		case inMemory > otherPartsLimit:
			return fileInvalid("the workbook's parts other than its sheet data unpack to more than %d MiB (images, styles?): save the list of ids alone", otherPartsLimit>>20)
		}
	}
	return nil
}

func (x *xlsxSource) next() (int, []string, error) {
	if !x.rows.Next() {
		if err := x.rows.Error(); err != nil {
			return 0, nil, fileInvalid("the worksheet cannot be read after row %d: %s", x.num, shortErr(err))
		}
		return 0, nil, io.EOF
	}
	x.num++
	cells, err := x.rows.Columns() // raw values: the file's options (openXLSX)
	if err != nil {
		return 0, nil, fileInvalid("row %d cannot be read: %s", x.num, shortErr(err))
	}
	return x.num, cells, nil
}

func (x *xlsxSource) rewind() error {
	if err := x.rows.Close(); err != nil {
		return err
	}
	rows, err := x.f.Rows(x.sheet)
	if err != nil {
		return err
	}
	x.rows, x.num = rows, 0
	return nil
}

func (x *xlsxSource) lastRow() int { return x.last }

func (x *xlsxSource) close() error {
	err := x.rows.Close()
	return errors.Join(err, x.f.Close())
}

// csvSource reads a UTF-8 CSV file (BOM skipped); a row's number is its line number.
type csvSource struct {
	file *os.File
	r    *csv.Reader
}

func openCSV(path string) (lineSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	c := &csvSource{file: f}
	c.start()
	return c, nil
}

// start reads the file from its beginning (a BOM skipped).
func (c *csvSource) start() {
	br := bufio.NewReaderSize(c.file, 64<<10)
	if head, _ := br.Peek(3); bytes.Equal(head, []byte("\xEF\xBB\xBF")) {
		_, _ = br.Discard(3)
	}
	c.r = csv.NewReader(br)
	c.r.FieldsPerRecord = -1
	c.r.LazyQuotes = true
	c.r.ReuseRecord = true
}

func (c *csvSource) next() (int, []string, error) {
	rec, err := c.r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, nil, io.EOF
		}
		return 0, nil, fileInvalid("the CSV file cannot be read: %s", shortErr(err))
	}
	line, _ := c.r.FieldPos(0)
	return line, rec, nil
}

func (c *csvSource) rewind() error {
	if _, err := c.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	c.start()
	return nil
}

func (c *csvSource) lastRow() int { return 0 }

func (c *csvSource) close() error { return c.file.Close() }

// shortErr is err's message cut to 120 bytes, for a merchant's eyes.
func shortErr(err error) string {
	m := err.Error()
	if len(m) > 120 {
		m = m[:120] + "…"
	}
	return fmt.Sprint(m)
}
