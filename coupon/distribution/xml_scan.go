package distribution

import (
	"bytes"
	"errors"
	"io"

	"github.com/orisano/gosax"
)

// newXMLReader is a gosax reader of r (reusing old's buffer when old is not nil) that reports a
// self-closing tag as a start and an end, and fails a run of more than xmlRunLimit bytes without
// a markup delimiter.
func newXMLReader(r io.Reader, old *gosax.Reader) *gosax.Reader {
	g := &runGuard{r: r}
	if old == nil {
		old = gosax.NewReaderSize(g, 64<<10)
	} else {
		old.Reset(g)
	}
	old.EmitSelfClosingTag = true
	return old
}

// runGuard fails a stream that runs more than xmlRunLimit bytes without a '<' or '>': gosax
// holds a whole tag or text in its buffer, so this bounds the buffer (a run within one read is
// at most the read's size).
type runGuard struct {
	r   io.Reader
	run int // bytes since the last delimiter
}

var errLongRun = errors.New("a tag or text of more than 1 MiB")

func (g *runGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	b := p[:n]
	if first := bytes.IndexAny(b, "<>"); first < 0 {
		g.run += n
	} else {
		if g.run+first > xmlRunLimit {
			return n, errLongRun
		}
		g.run = n - 1 - bytes.LastIndexAny(b, "<>")
	}
	if g.run > xmlRunLimit {
		return n, errLongRun
	}
	return n, err
}

// localName splits a gosax tag into its element's name without a namespace prefix (x:row → row)
// and its attributes.
func localName(tag []byte) (name, attrs []byte) {
	name, attrs = gosax.Name(tag)
	if i := bytes.IndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	return name, attrs
}

// attrs2 are the values of the unprefixed attributes k1 and k2 among attrs, without their
// quotes; nil when absent.
func attrs2(attrs []byte, k1, k2 string) (v1, v2 []byte) {
	for len(attrs) > 0 {
		a, rest, err := gosax.NextAttribute(attrs)
		if err != nil || a.Key == nil {
			break
		}
		if len(a.Value) >= 2 {
			switch string(a.Key) {
			case k1:
				v1 = a.Value[1 : len(a.Value)-1]
			case k2:
				v2 = a.Value[1 : len(a.Value)-1]
			}
		}
		attrs = rest
	}
	return v1, v2
}

// attr is the value of the unprefixed attribute key among attrs (attrs2).
func attr(attrs []byte, key string) []byte {
	v, _ := attrs2(attrs, key, "")
	return v
}

// rowNumber is a <row>'s number: its r attribute, or the one after prev when it has none.
func rowNumber(r []byte, prev int) (int, error) {
	if r == nil {
		if prev+1 > maxRow {
			return 0, fileInvalid("the worksheet has rows past row %d", maxRow)
		}
		return prev + 1, nil
	}
	n, ok := parseIndex(r)
	switch {
	case !ok || n == 0:
		return 0, fileInvalid("the worksheet cannot be read after row %d: a row is numbered %q", prev, asWritten(string(r)))
	case n > maxRow:
		return 0, fileInvalid("the worksheet has rows past row %d", maxRow)
	}
	return n, nil
}

// cellColumn is the 1-based column of a cell named ref ("AB12": 28), or the one after prev when
// ref is nil; false when ref is not a cell name within the worksheet's columns.
func cellColumn(ref []byte, prev int) (int, bool) {
	if ref == nil {
		return prev + 1, prev < maxColumn
	}
	col := 0
	for i, c := range ref {
		switch {
		case 'A' <= c && c <= 'Z':
			col = col*26 + int(c-'A') + 1
		case 'a' <= c && c <= 'z':
			col = col*26 + int(c-'a') + 1
		case '0' <= c && c <= '9' && i > 0:
			_, ok := parseIndex(ref[i:])
			return col, ok && col <= maxColumn
		default:
			return 0, false
		}
		if col > maxColumn {
			return 0, false
		}
	}
	return 0, false
}

// lastRowOf is the last row of a declared range ("A1:C21": 21, "B7": 7); 0 when there is none.
func lastRowOf(ref []byte) int {
	if i := bytes.IndexByte(ref, ':'); i >= 0 {
		ref = ref[i+1:]
	}
	i := bytes.IndexAny(ref, "0123456789")
	if i < 0 {
		return 0
	}
	n, ok := parseIndex(ref[i:])
	if !ok {
		return 0
	}
	return n
}

// parseIndex reads b as a non-negative decimal of at most 9 digits.
func parseIndex(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// runText gathers a cell's or a shared string's text from a stream of gosax events: the text of
// <v>, and of each <t> outside phonetic runs (<rPh>), entities decoded.
type runText struct {
	text    []byte
	collect bool
	phon    bool
}

func (r *runText) start(name []byte) {
	switch string(name) {
	case "v":
		r.collect = true
	case "t":
		r.collect = !r.phon
	case "rPh":
		r.phon = true
	}
}

func (r *runText) end(name []byte) {
	switch string(name) {
	case "v", "t":
		r.collect = false
	case "rPh":
		r.phon = false
	}
}

// chars takes a text or CDATA event.
func (r *runText) chars(e gosax.Event) error {
	if !r.collect {
		return nil
	}
	if e.Type() == gosax.EventCData {
		r.text = append(r.text, bytes.TrimSuffix(bytes.TrimPrefix(e.Bytes, []byte("<![CDATA[")), []byte("]]>"))...)
		return nil
	}
	t, err := gosax.Unescape(e.Bytes)
	r.text = append(r.text, t...)
	return err
}

// reset empties the text for the next element.
func (r *runText) reset() { *r = runText{text: r.text[:0]} }
