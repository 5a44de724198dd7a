package distribution

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// sniffLen is how much of a file sniff looks at.
const sniffLen = 64 << 10

// sniff tells a file's kind from its first bytes, never from its name: a zip container is an
// .xlsx (OpenSheet checks it is a workbook), UTF-8 text without NUL bytes is a CSV. An OLE
// compound file is a password-protected workbook (or an old .xls) and is refused with that reason.
func sniff(r io.ReaderAt) (Kind, error) {
	head := make([]byte, sniffLen)
	n, err := r.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return "", err
	}
	head = head[:n]
	switch {
	case n == 0:
		return "", fileInvalid("the file is empty")
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return KindXLSX, nil
	case bytes.HasPrefix(head, []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")):
		return "", fileInvalid("the workbook is password-protected or an old .xls file: save it as .xlsx without a password")
	}
	if n == sniffLen { // the last rune may be cut in two
		for i := 0; i < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head); i++ {
			head = head[:len(head)-1]
		}
	}
	if utf8.Valid(head) && bytes.IndexByte(head, 0) < 0 {
		return KindCSV, nil
	}
	return "", fileInvalid("only .xlsx workbooks and UTF-8 .csv files can be read")
}
