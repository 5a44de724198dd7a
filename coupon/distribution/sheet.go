package distribution

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

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

// lineSource yields a file's rows one at a time: each row's 1-based number and its cells.
type lineSource interface {
	next() (num int, cells []string, err error) // io.EOF after the last row
	rewind() error                              // back to the first row
	lastRow() int                               // the last row's number as the file declares it; 0: unknown
	close() error
}

// Sheet reads the data rows of a stored file one at a time, in constant memory: xlsxSource for
// .xlsx (raw cell values, so display formats such as #,##0 do not show; a formula's cached
// value), encoding/csv for .csv (UTF-8, a BOM skipped). The user-id column is the one whose
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
// An .xlsx's sheet may unpack to sheetXMLMultiple times maxUpload, the upload cap, checked from
// its zip directory before a byte is unpacked. A file that
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
