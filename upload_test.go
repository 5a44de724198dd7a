package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"coupond/coupon"
	"coupond/coupon/template"
	"coupond/ent/coupontemplate"

	"github.com/shopspring/decimal"
)

const createTaskMutation = `mutation($input: CreateCouponTaskInput!) {
  createCouponTask(input: $input) { task { id status } userErrors { code field message } }
}`

// upload posts createCouponTask over the GraphQL multipart request spec with file as the upload,
// and returns the HTTP status and the decoded answer.
func upload(t *testing.T, url, token, templateID, fileName string, file []byte, header map[string]string) (int, map[string]any) {
	t.Helper()
	prefix, suffix, contentType := uploadParts(templateID, fileName)
	body := bytes.NewBuffer(slices.Concat(prefix, file, suffix))
	var rd io.Reader = body
	if header["chunked"] != "" { // no Content-Length: the cap must hold while the body streams
		rd = struct{ io.Reader }{body}
	}
	req, _ := http.NewRequest(http.MethodPost, url+"/query", rd)
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		if k != "chunked" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, decodeAnswer(t, resp)
}

// decodeAnswer reads and closes resp's JSON body.
func decodeAnswer(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("answer %d is not JSON: %.300s", resp.StatusCode, raw)
	}
	return out
}

var preflight = map[string]string{"Apollo-Require-Preflight": "true"}

// codeOf returns the first top-level error's code, or the first userError's code.
func answerCode(out map[string]any) string {
	if errs, ok := out["errors"].([]any); ok && len(errs) > 0 {
		ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
		c, _ := ext["code"].(string)
		return c
	}
	data, _ := out["data"].(map[string]any)
	p, _ := data["createCouponTask"].(map[string]any)
	ues, _ := p["userErrors"].([]any)
	if len(ues) > 0 {
		c, _ := ues[0].(map[string]any)["code"].(string)
		return c
	}
	return ""
}

// Bad uploads get coded errors, and leave no task row and no stored file: a wrong type, a
// corrupt zip, a password-protected workbook, no user-id column, over the size cap (declared or
// streamed), no CSRF header, no token, another shop's template. A good one then succeeds, runs, and
// its failure report downloads for its merchant only.
func TestUploads(t *testing.T) {
	a, srv := testApp(t)
	tok := func(shop int64) string {
		s, err := a.signer.Issue(coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: shop}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	five := decimal.NewFromInt(5)
	now := time.Now()
	tpl, err := a.svc.Templates.Create(context.Background(), coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}, template.CreateInput{
		Name: "push", Source: coupontemplate.SourceSHOP, Target: coupontemplate.TargetSHOP_WIDE, Type: coupontemplate.TypeFIXED_OFF,
		ValidStartTime: now.Add(-time.Minute), ValidEndTime: now.Add(time.Hour), Stock: 100, LimitPerPerson: 1, DiscountAmount: &five,
	})
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprint(tpl.ID)
	good, err := os.ReadFile("coupon/distribution/testdata/bad-rows.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	enc := excelize.NewFile()
	_ = enc.SetCellValue("Sheet1", "A1", 1)
	var encBuf bytes.Buffer
	if err := enc.Write(&encBuf, excelize.Options{Password: "x"}); err != nil {
		t.Fatal(err)
	}
	wrongHeader, _ := os.ReadFile("coupon/distribution/testdata/wrong-header.xlsx")
	big := bytes.Repeat([]byte("1\n"), 33<<20) // 66 MiB of CSV
	for _, c := range []struct {
		name, token, tpl, file string
		content                []byte
		header                 map[string]string
		status                 int
		code                   string
	}{
		{"an image", tok(1001), id, "users.xlsx", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), preflight, 200, "FILE_INVALID"},
		{"a corrupt zip", tok(1001), id, "users.xlsx", good[:len(good)/2], preflight, 200, "FILE_INVALID"},
		{"a password-protected workbook", tok(1001), id, "users.xlsx", encBuf.Bytes(), preflight, 200, "FILE_INVALID"},
		{"no user-id column", tok(1001), id, "users.xlsx", wrongHeader, preflight, 200, "FILE_INVALID"},
		{"over the cap", tok(1001), id, "users.csv", big, preflight, 413, "REQUEST_TOO_LARGE"},
		{"over the cap, streamed", tok(1001), id, "users.csv", big, map[string]string{"Apollo-Require-Preflight": "true", "chunked": "1"}, 413, "REQUEST_TOO_LARGE"},
		{"no CSRF header", tok(1001), id, "users.xlsx", good, nil, 400, "BAD_USER_INPUT"},
		{"no token", "", id, "users.xlsx", good, preflight, 401, "UNAUTHENTICATED"},
		{"another shop's template", tok(2002), id, "users.xlsx", good, preflight, 200, "NOT_FOUND"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, out := upload(t, srv.URL, c.token, c.tpl, c.file, c.content, c.header)
			if status != c.status || answerCode(out) != c.code {
				t.Fatalf("%d %v; want %d %s", status, out, c.status, c.code)
			}
			if n, _ := a.db.CouponTask.Query().Count(context.Background()); n != 0 {
				t.Fatalf("%d task rows after a refused upload", n)
			}
			if files := storedFiles(t, a.cfg.BlobURL); len(files) != 0 {
				t.Fatalf("files kept after a refused upload: %v", files)
			}
		})
	}
	status, out := upload(t, srv.URL, tok(1001), id, `C:\merchant\名单.xlsx`, good, map[string]string{"X-Apollo-Operation-Name": "push"})
	if status != 200 || answerCode(out) != "" {
		t.Fatalf("good upload: %d %v", status, out)
	}
	taskID := out["data"].(map[string]any)["createCouponTask"].(map[string]any)["task"].(map[string]any)["id"].(string)
	if files := storedFiles(t, a.cfg.BlobURL); len(files) != 1 || !strings.HasPrefix(files[0], "tasks/"+taskID+".") {
		t.Fatalf("stored files %v: want one, named after the task", files)
	}
	var n int64
	fmt.Sscan(taskID, &n)
	if err := a.svc.Distribution.Run(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	code, body := get(t, srv.URL+"/tasks/"+taskID+"/failures.xlsx", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok(1001)) })
	if code != 200 {
		t.Fatalf("report: %d %.200s", code, body)
	}
	rep, err := excelize.OpenReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := rep.GetRows(rep.GetSheetName(0))
	if len(rows) != 6 || strings.Join(rows[0], ",") != "row,userId,code,reason" || strings.Join(rows[2][:3], ",") != "4,-5,INVALID_USER_ID" || rows[3][2] != "DUPLICATE_IN_FILE" {
		t.Fatalf("report rows %q", rows)
	}
	for _, other := range []string{tok(2002), ""} {
		code, _ := get(t, srv.URL+"/tasks/"+taskID+"/failures.xlsx", func(r *http.Request) {
			if other != "" {
				r.Header.Set("Authorization", "Bearer "+other)
			}
		})
		if code != 404 && !(other == "" && code == 401) {
			t.Fatalf("report for another shop (or no token): %d, want 404 (401 without a token)", code)
		}
	}
}

// storedFiles lists the files under a file:// blob URL.
func storedFiles(t *testing.T, url string) []string {
	t.Helper()
	dir := strings.TrimPrefix(url, "file://")
	var out []string
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && !strings.HasSuffix(p, ".attrs") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// realServer serves a's routes with the production server (a.httpServer: the minimum body rate
// and connection timeouts of a.cfg) on a loopback port, and returns its address.
func realServer(t *testing.T, a *app) string {
	t.Helper()
	srv := a.httpServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// shopMerchant is a token of the merchant of shop 1001, signed by a.
func shopMerchant(t *testing.T, a *app) string {
	t.Helper()
	tok, err := a.signer.Issue(coupon.Actor{UserID: 1, Role: coupon.RoleMerchant, Shop: 1001}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// uploadParts is a createCouponTask multipart body around a file named name: what comes before
// the file's bytes, what comes after, and the request's Content-Type.
func uploadParts(templateID, name string) (prefix, suffix []byte, contentType string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	ops, _ := json.Marshal(map[string]any{"query": createTaskMutation, "variables": map[string]any{"input": map[string]any{
		"templateId": templateID, "name": "push", "sendType": "IMMEDIATE", "file": nil,
	}}})
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0": ["variables.input.file"]}`)
	_, _ = mw.CreateFormFile("0", name)
	prefix = bytes.Clone(b.Bytes())
	b.Reset()
	_ = mw.Close()
	return prefix, b.Bytes(), mw.FormDataContentType()
}

// chunkedUpload opens a connection to addr and sends the headers of a chunked multipart POST
// /query with the token ("" for none); the caller writes the body with writeChunk.
func chunkedUpload(t *testing.T, addr, token, contentType string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := "POST /query HTTP/1.1\r\nHost: coupond\r\nTransfer-Encoding: chunked\r\nApollo-Require-Preflight: true\r\nContent-Type: " + contentType + "\r\n"
	if token != "" {
		head += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
		t.Fatal(err)
	}
	return conn
}

// writeChunk writes p as one chunk of a chunked body (an empty p ends the body).
func writeChunk(w io.Writer, p []byte) error {
	_, err := fmt.Fprintf(w, "%x\r\n%s\r\n", len(p), p)
	return err
}

// readAnswer reads the HTTP answer on conn and returns its status and error code.
func readAnswer(t *testing.T, conn net.Conn) (int, string) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, answerCode(decodeAnswer(t, resp))
}

// A USER's and an anonymous 40 MB chunked upload are answered at once (403 FORBIDDEN, 401
// UNAUTHENTICATED) while the client is still writing: the role is checked at the HTTP boundary
// before the body is read, and the connection is closed rather than drained.
func TestUploadRoleCheckedBeforeTheBody(t *testing.T) {
	a, _ := testApp(t)
	addr := realServer(t, a)
	user, err := a.signer.Issue(coupon.Actor{UserID: 7, Role: coupon.RoleUser}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	const size = 40 << 20
	prefix, suffix, ct := uploadParts("1", "users.csv")
	for _, c := range []struct {
		name, token string
		status      int
		code        string
	}{
		{"a USER", user, http.StatusForbidden, "FORBIDDEN"},
		{"anonymous", "", http.StatusUnauthorized, "UNAUTHENTICATED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn := chunkedUpload(t, addr, c.token, ct)
			var sent atomic.Int64
			writing := make(chan struct{})
			go func() {
				defer close(writing)
				chunk := bytes.Repeat([]byte("1234567\n"), 8<<10)
				if writeChunk(conn, prefix) != nil {
					return
				}
				for sent.Load() < size {
					if writeChunk(conn, chunk) != nil {
						return
					}
					sent.Add(int64(len(chunk)))
				}
				_ = writeChunk(conn, suffix)
				_ = writeChunk(conn, nil)
			}()
			began := time.Now()
			status, code := readAnswer(t, conn)
			took, atAnswer := time.Since(began), sent.Load()
			if status != c.status || code != c.code {
				t.Fatalf("answer %d %s, want %d %s", status, code, c.status, c.code)
			}
			if took > 300*time.Millisecond || atAnswer >= size {
				t.Fatalf("answered after %v with %d MiB of %d sent: the body was read first", took, atAnswer>>20, size>>20)
			}
			conn.Close()
			<-writing
		})
	}
}

// A merchant's chunked upload (no Content-Length) is spooled to a temporary file while it
// streams, not held in memory: halfway through the body, gqlgen's temporary file holds what was
// sent. The upload then succeeds.
func TestChunkedUploadSpoolsToDisk(t *testing.T) {
	a, _ := testApp(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.TempDir, where the multipart transport spools
	addr := realServer(t, a)
	merchant := shopMerchant(t, a)
	tplID := gqlTemplate(t, "http://"+addr, merchant, 100)
	prefix, suffix, ct := uploadParts(fmt.Sprint(tplID), "users.csv")
	conn := chunkedUpload(t, addr, merchant, ct)
	pad := strings.Repeat("x", 90)
	var half bytes.Buffer
	half.WriteString("userId,note\n")
	for i := 1; half.Len() < 4<<20; i++ {
		fmt.Fprintf(&half, "%d,%s\n", i, pad)
	}
	if writeChunk(conn, prefix) != nil || writeChunk(conn, half.Bytes()) != nil {
		t.Fatal("write failed")
	}
	var spooled int64
	for deadline := time.Now().Add(5 * time.Second); spooled < 4<<20 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(tmp, "gqlgen-*"))
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				spooled = max(spooled, fi.Size())
			}
		}
	}
	if spooled < 4<<20 {
		t.Fatalf("halfway through a chunked upload, %d bytes are in a temporary file, want the 4 MiB sent", spooled)
	}
	var rest bytes.Buffer
	for i := 1 << 20; rest.Len() < 4<<20; i++ {
		fmt.Fprintf(&rest, "%d,%s\n", i, pad)
	}
	if writeChunk(conn, rest.Bytes()) != nil || writeChunk(conn, suffix) != nil || writeChunk(conn, nil) != nil {
		t.Fatal("write failed")
	}
	if status, code := readAnswer(t, conn); status != 200 || code != "" {
		t.Fatalf("answer %d %s, want 200 and a task", status, code)
	}
}
