package distribution

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"coupond/coupon"
)

// rowsOf is every non-blank row of a source as "num:cell|cell…".
func rowsOf(t *testing.T, src lineSource) []string {
	t.Helper()
	var out []string
	for {
		num, cells, err := src.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if !blank(cells) {
			out = append(out, fmt.Sprintf("%d:%s", num, strings.Join(cells, "|")))
		}
	}
}

// excelizeRows is what excelize's row iterator reads from the first sheet, raw values, in the
// same form: the reader coupond used before, as the oracle.
func excelizeRows(t *testing.T, path string) []string {
	t.Helper()
	f, err := excelize.OpenFile(path, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.Rows(f.GetSheetList()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for num := 1; rows.Next(); num++ {
		cells, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		for len(cells) > 0 && cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		if !blank(cells) {
			out = append(out, fmt.Sprintf("%d:%s", num, strings.Join(cells, "|")))
		}
	}
	return out
}

// zipOf writes an .xlsx package of the given parts (name → content) to a temporary file.
func zipOf(t *testing.T, parts map[string]string) string {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, body := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "w.xlsx")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// workbookOf is a package with one worksheet named Users, whose part holds sheet, and the shared
// strings sst ("" for none); prefix is the namespace prefix of the workbook's elements ("" or
// "x:").
func workbookOf(t *testing.T, prefix, sheet, sst string) string {
	t.Helper()
	const main = `http://schemas.openxmlformats.org/spreadsheetml/2006/main`
	const rel = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`
	ns := `xmlns="` + main + `"`
	if prefix != "" {
		ns = `xmlns:` + strings.TrimSuffix(prefix, ":") + `="` + main + `"`
	}
	parts := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"_rels/.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="` + rel + `/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml": `<?xml version="1.0"?><` + prefix + `workbook ` + ns + ` xmlns:r="` + rel + `"><` + prefix + `sheets>` +
			`<` + prefix + `sheet name="Users" sheetId="1" r:id="rId7"/></` + prefix + `sheets></` + prefix + `workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId7" Type="` + rel + `/worksheet" Target="/xl/worksheets/data.xml"/>` +
			`<Relationship Id="rId8" Type="` + rel + `/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
		"xl/worksheets/data.xml": `<?xml version="1.0" encoding="UTF-8"?><` + prefix + `worksheet ` + ns + `>` + sheet + `</` + prefix + `worksheet>`,
	}
	if sst != "" {
		parts["xl/sharedStrings.xml"] = `<?xml version="1.0"?><` + prefix + `sst ` + ns + `>` + sst + `</` + prefix + `sst>`
	}
	return zipOf(t, parts)
}

// A worksheet reads as excelize's row iterator read it (raw values): the LibreOffice fixtures, and
// hand-written parts with what other writers do: a namespace prefix, rows and cells without
// references, gaps, self-closing cells, inline and shared strings in rich runs with phonetic
// runs, entities, CDATA, a formula's cached value, booleans and empty rows.
func TestXLSXReadsAsExcelize(t *testing.T) {
	sheet := func(p string) string {
		return strings.NewReplacer("</", "</"+p, "<![", "<![", "<", "<"+p).Replace(
			`<dimension ref="A1:D9"/><sheetViews/><sheetData>` +
				`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="inlineStr"><is><r><t>No</t></r><r><t xml:space="preserve">te </t></r><rPh><t>ノート</t></rPh></is></c></row>` +
				`<row r="2"><c r="A2"><v>100001</v></c><c r="B2"/><c r="D2" t="s"><v> 1 </v></c><c r="E2" t="s"/></row>` +
				`<row><c><v>100002</v></c><c t="str"><f>A3&amp;""</f><v>x&lt;&amp;&gt;y</v></c></row>` +
				`<row r="5"/>` +
				`<row r="6" spans="1:2"><c r="A6" t="s"><v>2</v></c><c r="B6" t="b"><v>1</v></c></row>` +
				`<row r="8"><c r="B8"><v>1.5E+3</v></c><c r="AA8" t="inlineStr"><is><t><![CDATA[a<b]]></t></is></c></row>` +
				`<row r="9"><c r="A9" t="e"><v>#N/A</v></c></row>` +
				`</sheetData><pageMargins left="0.7"/>`)
	}
	sst := func(p string) string {
		return strings.NewReplacer("</", "</"+p, "<", "<"+p).Replace(
			`<si><t>userId</t></si><si><r><rPr><b/></rPr><t>rich </t></r><r><t>text</t></r><rPh sb="0" eb="1"><t>りっち</t></rPh></si>` +
				`<si><t xml:space="preserve"> 100003 </t></si>`)
	}
	files := map[string]string{
		"plain":    workbookOf(t, "", sheet(""), sst("")),
		"prefixed": workbookOf(t, "x:", sheet("x:"), sst("x:")),
	}
	for _, dir := range []string{"testdata", "../../../shared/fixtures/distribution"} {
		names, _ := filepath.Glob(filepath.Join(dir, "*.xlsx"))
		for _, n := range names {
			files[n] = n
		}
	}
	for name, path := range files {
		t.Run(name, func(t *testing.T) {
			src, err := openXLSX(path, "", 64<<20)
			if err != nil {
				t.Fatal(err)
			}
			defer src.close()
			got, want := rowsOf(t, src), excelizeRows(t, path)
			if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) == 0 {
				t.Fatalf("rows\n got %q\nwant %q", got, want)
			}
			if err := src.rewind(); err != nil {
				t.Fatal(err)
			}
			if again := rowsOf(t, src); strings.Join(again, "\n") != strings.Join(got, "\n") {
				t.Fatalf("after rewind\n got %q\nwant %q", again, got)
			}
		})
	}
	src, err := openXLSX(files["prefixed"], "users", 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	if src.lastRow() != 9 {
		t.Fatalf("declared last row %d, want 9", src.lastRow())
	}
}

// A worksheet that would make the reader hold much, or that is not what it says, is FILE_INVALID
// with the row and the reason: a cell past column XFD, a row past 1,048,576, a tag or text of
// more than 1 MiB (never held whole), a row with more than 1 MiB of text, a shared string the
// workbook lacks, a truncated part, and a package without its workbook.
func TestXLSXRefusesWhatItCannotRead(t *testing.T) {
	big := strings.Repeat("9", 300<<10)
	for _, c := range []struct {
		name, sheet, sst, want string
	}{
		{"column past XFD", `<sheetData><row r="2"><c r="XFE2"><v>1</v></c></row></sheetData>`, "", `a cell is named "XFE2"`},
		{"row past the last", `<sheetData><row r="1048577"><c><v>1</v></c></row></sheetData>`, "", "rows past row 1048576"},
		{"a long text", `<sheetData><row r="1"><c><v>` + strings.Repeat("1", 2<<20) + `</v></c></row></sheetData>`, "", "more than 1 MiB"},
		{"a long tag", `<sheetData><row r="1" x="` + strings.Repeat("a", 2<<20) + `"></row></sheetData>`, "", "more than 1 MiB"},
		{"a wide row", `<sheetData><row r="3"><c><v>` + big + `</v></c><c><v>` + big + `</v></c><c><v>` + big + `</v></c><c><v>` + big + `</v></c></row></sheetData>`, "", "row 3 holds more than 1024 KiB"},
		{"a missing shared string", `<sheetData><row r="4"><c t="s"><v>1</v></c></row></sheetData>`, `<si><t>a</t></si>`, `row 4 cannot be read: it refers to shared string "1"`},
		{"no shared strings", `<sheetData><row r="4"><c t="s"><v>0</v></c></row></sheetData>`, "", "the workbook has none"},
		{"cut short", `<sheetData><row r="1"><c><v>1</v></c></row><row r="2"><c><v>2</v`, "", "ends before its last row"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, err := openXLSX(workbookOf(t, "", c.sheet, c.sst), "", 64<<20)
			if err == nil {
				defer src.close()
				for err == nil {
					_, _, err = src.next()
				}
			}
			errs := coupon.AsErrors(err)
			if errs == nil || errs[0].Code != coupon.CodeFileInvalid || !strings.Contains(errs[0].Message, c.want) {
				t.Fatalf("%v, want FILE_INVALID containing %q", err, c.want)
			}
		})
	}
	noWorkbook := zipOf(t, map[string]string{"_rels/.rels": `<Relationships/>`, "xl/worksheets/sheet1.xml": `<worksheet/>`})
	if _, err := openXLSX(noWorkbook, "", 64<<20); err == nil || !strings.Contains(err.Error(), "not a readable .xlsx") {
		t.Fatalf("a package without a workbook: %v", err)
	}
}
