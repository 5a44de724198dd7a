package distribution

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"

	"github.com/orisano/gosax"
)

// Bounds on what an .xlsx may make a reader do. The parts' sizes are checked from the zip
// directory before a byte is unpacked (Go's zip reader fails a part that unpacks to more than it
// declares); the others while reading.
const (
	// sheetXMLMultiple: the worksheet may unpack to this many times the upload cap. It is streamed,
	// never held: Excel's sheet XML of a list of ids compresses about 5 to 10 times, so a workbook at
	// the cap fits.
	sheetXMLMultiple = 16
	// sharedStringsLimit: the shared-strings part, whose texts are held while the sheet is read (a
	// million distinct text ids: about 25 MiB of XML, 14 MiB held).
	sharedStringsLimit = 64 << 20
	// packagePartLimit: the package's relationships and the workbook part, parsed whole (a few KiB
	// in a real workbook).
	packagePartLimit = 1 << 20
	// xmlRunLimit: the longest run of bytes without a markup delimiter ('<' or '>'), so no tag or
	// text grows the XML reader's buffer past about twice it (a real sheet's are tens of bytes).
	xmlRunLimit = 1 << 20
	// rowTextLimit: the text a row's cells may hold in all.
	rowTextLimit = 1 << 20
	// maxColumn and maxRow: a worksheet's bounds (Excel's XFD and 1,048,576).
	maxColumn = 16384
	maxRow    = 1 << 20
)

// xlsxSource streams one worksheet of an .xlsx: its part is found through the workbook's
// relationships (workbook.go), its XML tokenized by gosax, without reflection or a token per
// attribute (excelize's row iterator decoded a cell into a struct by reflection: 7 µs a row, more
// than half a distribution worker's CPU; this reads the same sheet about 20 times faster). Values
// are the raw ones: a number as stored (display formats such as #,##0 do not show), a formula's
// cached value, a shared string's text (read when the sheet first refers to one).
type xlsxSource struct {
	z     *zip.ReadCloser
	part  *zip.File
	sst   *zip.File      // nil: the workbook has no shared strings
	strs  *sharedStrings // read at the first shared-string cell
	rc    io.ReadCloser
	x     *gosax.Reader
	done  bool // </sheetData> or the end of the part was read
	num   int  // the last row's number
	last  int  // the worksheet's <dimension> last row; 0: none
	cells []string
	text  runText // the cell being read
}

func openXLSX(path, sheet string, maxUpload int64) (lineSource, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, notAWorkbook()
	}
	wb, err := readWorkbook(z)
	if err == nil {
		var x *xlsxSource
		if x, err = wb.open(z, sheet, sheetXMLMultiple*maxUpload); err == nil {
			return x, nil
		}
	}
	z.Close()
	return nil, err
}

func notAWorkbook() error {
	return fileInvalid("the file is not a readable .xlsx workbook (damaged, or not saved as Excel 2007-365)")
}

// start reads the part from its beginning up to <sheetData>, noting the declared <dimension>.
func (x *xlsxSource) start() error {
	rc, err := x.part.Open()
	if err != nil {
		return notAWorkbook()
	}
	x.rc = rc
	x.x = newXMLReader(rc, x.x)
	x.num, x.done = 0, false
	for {
		e, err := x.x.Event()
		if err != nil {
			return fileInvalid("the worksheet cannot be read: %s", shortErr(err))
		}
		switch e.Type() {
		case gosax.EventEOF:
			x.done = true
			return nil
		case gosax.EventStart:
			switch name, attrs := localName(e.Bytes); string(name) {
			case "dimension":
				x.last = lastRowOf(attr(attrs, "ref"))
			case "sheetData":
				return nil
			}
		}
	}
}

func (x *xlsxSource) next() (int, []string, error) {
	if x.done {
		return 0, nil, io.EOF
	}
	cells, rowText := x.cells[:0], 0
	col, shared := 0, false // the cell being read: its column, t="s"
	for {
		e, err := x.x.Event()
		switch e.Type() {
		case gosax.EventStart:
			name, attrs := localName(e.Bytes)
			switch string(name) {
			case "row":
				if x.num, err = rowNumber(attr(attrs, "r"), x.num); err != nil {
					return 0, nil, err
				}
				cells, rowText, col = cells[:0], 0, 0
			case "c":
				ref, typ := attrs2(attrs, "r", "t") // its reference and type
				var ok bool
				if col, ok = cellColumn(ref, col); !ok {
					return 0, nil, fileInvalid("row %d cannot be read: a cell is named %q", x.num, asWritten(string(ref)))
				}
				shared = string(typ) == "s"
				x.text.reset()
			default:
				x.text.start(name)
			}
		case gosax.EventText, gosax.EventCData:
			err = x.text.chars(e)
		case gosax.EventEnd:
			name, _ := localName(e.Bytes)
			switch string(name) {
			case "c":
				v, err := x.value(shared)
				if err != nil {
					return 0, nil, err
				}
				if rowText += len(v); rowText > rowTextLimit {
					return 0, nil, fileInvalid("row %d holds more than %d KiB of text", x.num, rowTextLimit>>10)
				}
				cells = setCell(cells, col, v)
			case "row":
				x.cells = cells
				return x.num, cells, nil
			case "sheetData":
				x.done = true
				return 0, nil, io.EOF
			default:
				x.text.end(name)
			}
		case gosax.EventEOF:
			x.done = true
			err = errors.New("it ends before its last row does")
		}
		if err != nil {
			return 0, nil, fileInvalid("the worksheet cannot be read after row %d: %s", x.num, shortErr(err))
		}
	}
}

// value is the cell just read: its shared string when shared (none when its index is blank, as
// excelize reads it), else its text.
func (x *xlsxSource) value(shared bool) (string, error) {
	if !shared {
		return string(x.text.text), nil
	}
	index := bytes.TrimSpace(x.text.text)
	if len(index) == 0 {
		return "", nil
	}
	if x.strs == nil {
		s, err := readSharedStrings(x.sst)
		if err != nil {
			return "", err
		}
		x.strs = s
	}
	i, ok := parseIndex(index)
	v, found := x.strs.get(i)
	if !ok || !found {
		return "", fileInvalid("row %d cannot be read: it refers to shared string %q, which the workbook lacks", x.num, asWritten(string(index)))
	}
	return v, nil
}

// setCell sets cells' column col (1-based) to v when v is not empty, padding with empty cells: a row
// ends at its last non-empty cell.
func setCell(cells []string, col int, v string) []string {
	if v == "" {
		return cells
	}
	for len(cells) < col {
		cells = append(cells, "")
	}
	cells[col-1] = v
	return cells
}

func (x *xlsxSource) rewind() error {
	if err := x.rc.Close(); err != nil {
		return err
	}
	return x.start()
}

func (x *xlsxSource) lastRow() int { return x.last }

func (x *xlsxSource) close() error {
	return errors.Join(x.rc.Close(), x.z.Close())
}
