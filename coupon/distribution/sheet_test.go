package distribution

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"coupond/coupon"
)

// readAll returns every data row of a testdata file as "row:id" or "row:CODE".
func readAll(t *testing.T, name string, kind Kind, sheet string) []string {
	t.Helper()
	s, err := OpenSheet(filepath.Join("testdata", name), kind, sheet, 64<<20)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer s.Close()
	var out []string
	for {
		r, ok := s.Next()
		if !ok {
			break
		}
		if r.Code != "" {
			out = append(out, fmt.Sprintf("%d:%s", r.Num, r.Code))
		} else {
			out = append(out, fmt.Sprintf("%d:%d", r.Num, r.UserID))
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func seq(firstRow int, firstID, n int64) []string {
	var out []string
	for i := int64(0); i < n; i++ {
		out = append(out, fmt.Sprintf("%d:%d", firstRow+int(i), firstID+i))
	}
	return out
}

// The LibreOffice-made fixtures (testdata/README.md) read as the merchant wrote them.
func TestSheetFixtures(t *testing.T) {
	zh := append(seq(2, 200001, 7), seq(10, 200008, 8)...) // a blank row 9
	zh = append(zh, "18:200099")
	for _, c := range []struct {
		file  string
		kind  Kind
		sheet string
		want  []string
	}{
		{"en-header-numbers.xlsx", KindXLSX, "", seq(2, 100001, 20)},
		{"zh-header-text.xlsx", KindXLSX, "", zh},
		{"no-header-two-sheets.xlsx", KindXLSX, "", seq(1, 300001, 10)},
		{"bad-rows.xlsx", KindXLSX, "", []string{"2:400001", "3:INVALID_USER_ID", "4:INVALID_USER_ID", "5:400001", "6:INVALID_USER_ID", "8:400003", "9:INVALID_USER_ID"}},
		{"users-bom-crlf.csv", KindCSV, "", []string{"2:500001", "3:500002", "5:500003", "6:INVALID_USER_ID"}},
		// grouped #,##0 number, a formula, "1000003.0" as text, 19 digits as text, 19 digits as a
		// number (rounded by the spreadsheet), 0, an empty id cell, a text formula.
		{"formats.xlsx", KindXLSX, "", []string{"2:1000001", "3:1000002", "4:1000003", "5:1234567890123456789", "6:INVALID_USER_ID", "7:INVALID_USER_ID", "8:INVALID_USER_ID", "9:1000004"}},
		{"no-header-two-sheets.xlsx", KindXLSX, "Notes", nil},
	} {
		t.Run(c.file+"/"+c.sheet, func(t *testing.T) {
			if c.want == nil {
				_, err := OpenSheet(filepath.Join("testdata", c.file), c.kind, c.sheet, 64<<20)
				if errs := coupon.AsErrors(err); errs == nil || errs[0].Code != coupon.CodeFileInvalid {
					t.Fatalf("sheet %q: %v, want FILE_INVALID", c.sheet, err)
				}
				return
			}
			got := readAll(t, c.file, c.kind, c.sheet)
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Fatalf("rows\n got %v\nwant %v", got, c.want)
			}
		})
	}
}

// The sheet named by the task is read instead of the first; the zh fixture's sheet is 名单.
func TestSheetByName(t *testing.T) {
	if got := readAll(t, "zh-header-text.xlsx", KindXLSX, "名单"); len(got) != 16 {
		t.Fatalf("%d rows, want 16", len(got))
	}
}

// Files a merchant must hear about get FILE_INVALID with a message naming the problem.
func TestSheetInvalidFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, err := os.ReadFile("testdata/en-header-numbers.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	enc := excelize.NewFile()
	_ = enc.SetCellValue("Sheet1", "A1", 1)
	encPath := filepath.Join(dir, "enc.xlsx")
	if err := enc.SaveAs(encPath, excelize.Options{Password: "secret"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want string
		kind             Kind
	}{
		{"wrong header xlsx", "testdata/wrong-header.xlsx", "no user-id column", KindXLSX},
		{"wrong header csv", "testdata/wrong-header.csv", "no user-id column", KindCSV},
		{"truncated zip", write("cut.xlsx", good[:len(good)/2]), "not a readable .xlsx", KindXLSX},
		{"empty csv", write("empty.csv", []byte("\n\n")), "no rows", KindCSV},
		{"header only", write("header.csv", []byte("userId\n")), "no rows with user ids", KindCSV},
		{"encrypted", encPath, "", KindXLSX},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := OpenSheet(c.path, c.kind, "", 64<<20)
			errs := coupon.AsErrors(err)
			if errs == nil || errs[0].Code != coupon.CodeFileInvalid || !strings.Contains(errs[0].Message, c.want) {
				t.Fatalf("%v, want FILE_INVALID containing %q", err, c.want)
			}
		})
	}
}

func TestParseUserID(t *testing.T) {
	for raw, want := range map[string]int64{
		"1": 1, " 42 ": 42, "\u00a042\u3000": 42, "12345.0": 12345, "1.2E+5": 120000,
		"9223372036854775807": 9223372036854775807, "9007199254740992": 9007199254740992,
		"0": 0, "-5": 0, "abc": 0, "": 0, "1.5": 0, "9223372036854775808": 0,
		"1.23456789012346E+018": 0, "9007199254740994.0": 0, "inf": 0, "NaN": 0, "0x10": 0, "1_000": 0,
	} {
		got, reason := parseUserID(raw)
		if got != want || (want == 0) != (reason != "") {
			t.Errorf("parseUserID(%q) = %d, %q; want %d", raw, got, reason, want)
		}
	}
	if _, reason := parseUserID("1.23456789012346E+018"); !strings.Contains(reason, "text") {
		t.Errorf("a rounded number's reason should tell to store ids as text: %q", reason)
	}
}
