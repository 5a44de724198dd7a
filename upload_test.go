package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	ops, _ := json.Marshal(map[string]any{"query": createTaskMutation, "variables": map[string]any{"input": map[string]any{
		"templateId": templateID, "name": "push", "sendType": "IMMEDIATE", "file": nil,
	}}})
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0": ["variables.input.file"]}`)
	fw, _ := mw.CreateFormFile("0", fileName)
	_, _ = fw.Write(file)
	_ = mw.Close()
	var rd io.Reader = &body
	if header["chunked"] != "" { // no Content-Length: the cap must hold while the body streams
		rd = struct{ io.Reader }{&body}
	}
	req, _ := http.NewRequest(http.MethodPost, url+"/query", rd)
	req.Header.Set("Content-Type", mw.FormDataContentType())
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
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("answer %d is not JSON: %.300s", resp.StatusCode, raw)
	}
	return resp.StatusCode, out
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
