package distribution_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"coupond/coupon"
	"coupond/coupon/distribution"
	"coupond/ent/coupontask"
	"coupond/ent/usercoupon"
	"coupond/services"
	"coupond/testutil/stack"
)

// xlsxOf is a workbook with a userId header and the given ids in column A of its first sheet.
func xlsxOf(t *testing.T, ids ...int64) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	_ = f.SetCellValue("Sheet1", "A1", "userId")
	for i, id := range ids {
		_ = f.SetCellValue("Sheet1", fmt.Sprintf("A%d", i+2), id)
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withPart is the zip xlsx with the part name holding size bytes of c (a new part, or one
// replacing the part of that name), deflated: a few hundred KiB however large size is.
func withPart(t *testing.T, xlsx []byte, name string, c byte, size int64) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(xlsx), int64(len(xlsx)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		if f.Name == name {
			continue
		}
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(w, repeatReader(c), size); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// An .xlsx whose sheet or shared strings unpack to more than the limits (16 times the upload
// cap, 64 MiB) is refused at upload from its zip directory, without unpacking: FILE_INVALID on
// the file, well under a second and a few MiB allocated, nothing stored. A part the reader never
// opens (a 200 MiB image beside the sheet) costs nothing: the workbook is taken.
func TestXLSXUnzipLimits(t *testing.T) {
	const maxUpload = 1 << 20 // sheets may unpack to 16 MiB
	s := stack.New(t, "dist", "unzip", stack.Options{Config: services.Config{
		Distribution: distribution.Config{MaxUploadBytes: maxUpload},
	}})
	tpl := s.Template(t, 10, 1, nil)
	good := xlsxOf(t, 1, 2, 3)
	taken := 0
	for _, c := range []struct {
		name, want string // want "": taken
		file       []byte
	}{
		{"a bomb beside the sheet", "", withPart(t, good, "xl/media/image1.png", 0, 200<<20)},
		{"a bomb in the sheet", "sheets unpack to more than 16 MiB", withPart(t, good, "xl/worksheets/sheet1.xml", ' ', 17<<20)},
		{"a bomb in the shared strings", "shared strings unpack to more than 64 MiB", withPart(t, good, "xl/sharedStrings.xml", ' ', 65<<20)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.file) > maxUpload {
				t.Fatalf("the bomb is %d bytes, over the cap", len(c.file))
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			began := time.Now()
			_, err := s.Distribution.Create(s.Ctx, stack.Merchant, distribution.CreateInput{
				TemplateID: tpl.ID, Name: "bomb", SendType: coupontask.SendTypeIMMEDIATE, FileName: "u.xlsx", File: bytes.NewReader(c.file),
			})
			took := time.Since(began)
			runtime.ReadMemStats(&after)
			var ce *coupon.Error
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("%v; want it taken", err)
			case c.want == "":
				taken++
			case !errors.As(err, &ce) || ce.Code != coupon.CodeFileInvalid || !strings.Contains(ce.Message, c.want) || strings.Join(ce.Field, ".") != "file":
				t.Fatalf("%v; want FILE_INVALID on file saying %q", err, c.want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 || took > 500*time.Millisecond {
				t.Fatalf("it allocated %d MiB and took %v", alloc>>20, took)
			}
		})
	}
	if n, _ := s.DB.CouponTask.Query().Count(s.Ctx); n != taken {
		t.Fatalf("%d tasks, want %d", n, taken)
	}
}

// COUPON_DISTRIBUTION_MAX_ROWS (10 here): a CSV of 11 data rows is refused at upload with the
// reason (a CSV of 10 is taken, counted at once). A workbook of 11, whose rows the API does not
// count, is taken. When its declared range says it may pass the cap (Excel and LibreOffice keep
// it exact), the run counts it and the task FAILS with the reason before a coupon is issued; when
// it declares none worth trusting (excelize writes "A1" whatever the rows), the run's reader holds
// the cap: the first 10 rows are distributed, then the task ends FAILED with the reason. A range
// past the cap that holds no more than 10 data rows (blank rows) is counted and distributed.
func TestRowCap(t *testing.T) {
	s := stack.New(t, "dist", "rowcap", stack.Options{Config: services.Config{
		Distribution: distribution.Config{MaxRows: 10},
	}})
	tpl := s.Template(t, 100, 1, nil)
	const reason = "the file has more than 10 data rows, the most one task takes: split it into several tasks"
	_, err := s.Distribution.Create(s.Ctx, stack.Merchant, distribution.CreateInput{
		TemplateID: tpl.ID, Name: "big", SendType: coupontask.SendTypeIMMEDIATE, FileName: "u.csv", File: bytes.NewReader(csvOf(ids(1, 11)...)),
	})
	var ce *coupon.Error
	if !errors.As(err, &ce) || ce.Code != coupon.CodeFileInvalid || ce.Message != reason || strings.Join(ce.Field, ".") != "file" {
		t.Fatalf("a CSV of 11 rows: %v; want FILE_INVALID on file: %s", err, reason)
	}
	ten := create(t, s, tpl.ID, "u.csv", csvOf(ids(1, 10)...))
	if ten.SendNum == nil || *ten.SendNum != 10 {
		t.Fatalf("a CSV of 10 rows: send_num %v, want 10 at once", ten.SendNum)
	}
	if done := run(t, s, ten.ID); done.Status != coupontask.StatusSUCCESS || done.SuccessCount != 10 {
		t.Fatalf("a CSV of 10 rows: %s, %d issued", done.Status, done.SuccessCount)
	}

	for _, c := range []struct {
		name      string
		dimension string // "": as excelize writes it ("A1")
		from      int64
		issued    int
	}{
		{"declared range", "A1:A12", 100, 0},
		{"no declared range", "", 200, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := xlsxOf(t, ids(c.from, 11)...)
			if c.dimension != "" {
				file = withDimension(t, file, c.dimension)
			}
			task := create(t, s, tpl.ID, "u.xlsx", file)
			if task.SendNum != nil {
				t.Fatalf("an .xlsx counted at upload: %d", *task.SendNum)
			}
			got := run(t, s, task.ID)
			if got.Status != coupontask.StatusFAILED || got.FailureReason == nil || *got.FailureReason != reason ||
				got.ProcessedRows != c.issued || got.SuccessCount != c.issued {
				t.Fatalf("%s %v, %d rows processed, %d issued; want FAILED: %s after %d rows", got.Status, got.FailureReason, got.ProcessedRows, got.SuccessCount, reason, c.issued)
			}
			if n, _ := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(tpl.ID), usercoupon.UserIDGTE(c.from), usercoupon.UserIDLT(c.from+11)).Count(s.Ctx); n != c.issued {
				t.Fatalf("%d coupons issued from a file over the cap, want %d", n, c.issued)
			}
		})
	}
	// A range past the cap over blank rows: the run counts the file (the one case of a second
	// pass) and, 10 data rows, distributes it with send_num set before its first batch.
	blanks := withDimension(t, xlsxOf(t, ids(300, 10)...), "A1:A40")
	if done := run(t, s, create(t, s, tpl.ID, "u.xlsx", blanks).ID); done.Status != coupontask.StatusSUCCESS || done.SuccessCount != 10 || done.SendNum == nil || *done.SendNum != 10 {
		t.Fatalf("10 rows in a range of 40: %s, %d issued, send_num %v; want SUCCESS, 10, 10", done.Status, done.SuccessCount, done.SendNum)
	}
	books(t, s, tpl)
}

// withDimension is the workbook xlsx with its first sheet's declared range set to ref.
func withDimension(t *testing.T, xlsx []byte, ref string) []byte {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(xlsx))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.SetSheetDimension("Sheet1", ref); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The failure report goes on to the next sheet when one is full (here 5 rows a sheet, a header
// and 4 failures; in production Excel's 1,048,576): 10 failures fill Sheet1 and Sheet2 and
// leave 2 in Sheet3, each sheet with its header, in row order.
func TestReportGoesOnToTheNextSheet(t *testing.T) {
	defer distribution.SetReportSheetRows(5)()
	s := newStack(t, "report_sheets", 100)
	tpl := s.Template(t, 100, 1, nil)
	var csv strings.Builder
	csv.WriteString("userId\n")
	for i := range 10 {
		fmt.Fprintf(&csv, "x%d\n", i)
	}
	task := run(t, s, create(t, s, tpl.ID, "u.csv", []byte(csv.String())).ID)
	if task.FailCount != 10 {
		t.Fatalf("%d failures, want 10", task.FailCount)
	}
	var b bytes.Buffer
	if err := s.Distribution.WriteReport(s.Ctx, task.ID, &b); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	for _, sheet := range f.GetSheetList() {
		rows, err := f.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		var line []string
		for _, r := range rows {
			line = append(line, r[0]+":"+r[1])
		}
		got = append(got, sheet+"="+strings.Join(line, ","))
	}
	want := []string{
		"Sheet1=row:userId,2:x0,3:x1,4:x2,5:x3",
		"Sheet2=row:userId,6:x4,7:x5,8:x6,9:x7",
		"Sheet3=row:userId,10:x8,11:x9",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("report sheets\n%v\nwant\n%v", got, want)
	}
}
