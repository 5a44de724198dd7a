package distribution

import (
	"archive/zip"

	"github.com/orisano/gosax"
)

// sharedStrings is a workbook's shared-string table: its texts back to back, and where each ends
// (a million short ids hold about 14 MiB).
type sharedStrings struct {
	text []byte
	ends []uint32
}

// get is the i-th string; false when the table has no such string.
func (s *sharedStrings) get(i int) (string, bool) {
	if i < 0 || i >= len(s.ends) {
		return "", false
	}
	start := uint32(0)
	if i > 0 {
		start = s.ends[i-1]
	}
	return string(s.text[start:s.ends[i]]), true
}

// readSharedStrings reads the shared-strings part f (nil: the workbook has none): each <si>'s
// text is its <t>s outside phonetic runs (<rPh>), joined, as Excel shows it.
func readSharedStrings(f *zip.File) (*sharedStrings, error) {
	if f == nil {
		return nil, fileInvalid("the worksheet refers to shared strings, and the workbook has none")
	}
	rc, err := f.Open()
	if err != nil {
		return nil, notAWorkbook()
	}
	defer rc.Close()
	x := newXMLReader(rc, nil)
	s := &sharedStrings{}
	var t runText
	for {
		e, err := x.Event()
		switch e.Type() {
		case gosax.EventStart:
			name, _ := localName(e.Bytes)
			t.start(name)
		case gosax.EventEnd:
			name, _ := localName(e.Bytes)
			if t.end(name); string(name) == "si" {
				s.text = append(s.text, t.text...)
				s.ends = append(s.ends, uint32(len(s.text)))
				t.reset()
			}
		case gosax.EventText, gosax.EventCData:
			err = t.chars(e)
		case gosax.EventEOF:
			return s, nil
		}
		if err != nil {
			return nil, fileInvalid("the workbook's shared strings cannot be read: %s", shortErr(err))
		}
	}
}
