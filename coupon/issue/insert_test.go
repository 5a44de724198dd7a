package issue

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/store"
	"coupond/testutil"
)

// nastyRequestIDs are requestIds made of the bytes that could end a LOAD DATA field or row, read
// as \N, or end an SQL literal, and multi-byte UTF-8 up to the column's 64 bytes; "" is none (NULL).
var nastyRequestIDs = []string{
	"tab\there", "nl\nhere", "cr\rhere", `back\slash`, `\`, `\\`, `trailing\`, `\N`, "NULL", `\t`, `\n`,
	`'quote"double`, "`tick`", "nul\x00byte", "😀 emoji ünï", "a,b;c", "(x),(y)", "X'41'", "-- x", "\\\t\n\\",
	strings.Repeat("é", 32), "",
}

// paths are the two ways insertCoupons writes (its vitess argument).
var paths = []struct {
	name   string
	vitess bool
}{{"LOAD DATA", false}, {"INSERT", true}}

// couponItems are one item per requestId, each of its own user, with redemption ids as nasty.
func couponItems(tpl int64, reqs []string) []Item {
	at := time.Date(2026, 12, 6, 8, 1, 2, 123456789, time.UTC)
	items := make([]Item, len(reqs))
	for i, r := range reqs {
		items[i] = Item{Coupon: Coupon{UserID: int64(1000 + i), TemplateID: tpl, RedemptionID: fmt.Sprintf("r\t\n\\%d-%d'", tpl, i),
			ReceiveCount: 1 + i%3, Source: usercoupon.SourceCLAIM, At: at.Add(time.Duration(i) * time.Hour),
			End: at.Add(time.Duration(i) * 24 * time.Hour), RequestID: r}}
	}
	return items
}

// couponRows are the rows of template tpl, every column but id and template_id, hex where text,
// by user.
func couponRows(t *testing.T, db *sql.DB, tpl int64) []string {
	t.Helper()
	return testutil.Strings(t, db, "SELECT CONCAT_WS('|', user_id, HEX(redemption_id), receive_count, source, status, created_at, updated_at, "+
		"valid_start_time, valid_end_time, IFNULL(HEX(request_id), 'null'), IFNULL(stock_batch_id, 'null'), IFNULL(order_id, 'null'), "+
		"IFNULL(used_at, 'null'), IFNULL(discount_amount, 'null')) FROM user_coupon WHERE template_id = ? ORDER BY user_id", tpl)
}

// insertAll runs insertCoupons of items in a transaction of its own, committed when it succeeds.
func insertAll(ctx context.Context, db *ent.Client, items []Item, vitess bool) (Written, error) {
	var w Written
	err := store.WithTx(ctx, db, func(tx *ent.Tx) error {
		w = Written{}
		return insertCoupons(ctx, tx, 77, items, vitess, &w)
	}, nil)
	return w, err
}

// LOAD DATA and the INSERT fallback write byte-identical rows for the same items, whatever bytes
// their requestIds and redemption ids hold, and those the items say.
func TestBothPathsWriteTheSameRows(t *testing.T) {
	db, sqlDB, _ := testutil.MySQL(t, "issue_insert_same")
	ctx := context.Background()
	var got [2][]string
	const tpl = 10
	for i, p := range paths {
		items := couponItems(tpl, nastyRequestIDs)
		w, err := insertAll(ctx, db, items, p.vitess)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if w.Inserted != len(items) || len(w.Issued) != len(items) {
			t.Fatalf("%s: %d inserted, %d issued, want %d", p.name, w.Inserted, len(w.Issued), len(items))
		}
		got[i] = couponRows(t, sqlDB, tpl)
		if len(got[i]) != len(items) {
			t.Fatalf("%s: %d rows, want %d", p.name, len(got[i]), len(items))
		}
		for j, it := range items {
			req := "null"
			if it.RequestID != "" {
				req = strings.ToUpper(hex.EncodeToString([]byte(it.RequestID)))
			}
			want := fmt.Sprintf("%d|%s|%d|CLAIM|UNUSED|%s|%[4]s|%[4]s|%s|%s|77|null|null|null", it.UserID,
				strings.ToUpper(hex.EncodeToString([]byte(it.RedemptionID))), it.ReceiveCount,
				it.At.Format("2006-01-02 15:04:05.000"), it.End.Format("2006-01-02 15:04:05.000"), req)
			if got[i][j] != want {
				t.Errorf("%s: row %d is\n%s\nwant\n%s", p.name, j, got[i][j], want)
			}
		}
		if _, err := sqlDB.Exec("DELETE FROM user_coupon WHERE template_id = ?", tpl); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got[0], "\n") != strings.Join(got[1], "\n") {
		t.Errorf("LOAD DATA wrote\n%s\nINSERT wrote\n%s", strings.Join(got[0], "\n"), strings.Join(got[1], "\n"))
	}
	if localInfileRefused.Load() {
		t.Fatal("the server refused LOAD DATA LOCAL: the test compared INSERT with itself")
	}
}

// A requestId that is not UTF-8 or is longer than its column is an error on both paths (LOAD DATA
// would store it mangled, with a warning), and nothing is written.
func TestBothPathsRefuseTextTheColumnsCannotHold(t *testing.T) {
	db, sqlDB, _ := testutil.MySQL(t, "issue_insert_text")
	ctx := context.Background()
	for _, p := range paths {
		for _, req := range []string{"bad\xff\xfeutf8", strings.Repeat("x", 65), strings.Repeat("é", 33)} {
			_, err := insertAll(ctx, db, couponItems(20, []string{"fine", req}), p.vitess)
			if err == nil || errors.Is(err, errUniqueKey) {
				t.Errorf("%s: requestId %q: %v, want an error", p.name, req, err)
			}
		}
	}
	if rows := couponRows(t, sqlDB, 20); len(rows) > 0 {
		t.Fatalf("%d rows written", len(rows))
	}
}

// A chunk meeting a unique key, within itself or against a row already there, and in the first or
// a later chunk of the items, is errUniqueKey on both paths, and the transaction leaves nothing.
func TestBothPathsReportAUniqueKeyMet(t *testing.T) {
	db, sqlDB, _ := testutil.MySQL(t, "issue_insert_dup")
	ctx := context.Background()
	held := couponItems(30, []string{"held"})
	if _, err := insertAll(ctx, db, held, false); err != nil {
		t.Fatal(err)
	}
	many := make([]string, rowsPerChunk+10)
	for i := range many {
		many[i] = fmt.Sprint("req-", i)
	}
	for _, p := range paths {
		for name, items := range map[string][]Item{
			"same slot twice in the chunk": append(couponItems(32, []string{"a", "b"}), couponItems(32, []string{"c"})...),
			"a slot held":                  {{Coupon: Coupon{UserID: held[0].UserID, TemplateID: 30, RedemptionID: "other", ReceiveCount: held[0].ReceiveCount, Source: usercoupon.SourceCLAIM, At: held[0].At, End: held[0].End}}},
			"a redemption id held":         {{Coupon: Coupon{UserID: 5, TemplateID: 30, RedemptionID: held[0].RedemptionID, ReceiveCount: 1, Source: usercoupon.SourceCLAIM, At: held[0].At, End: held[0].End}}},
			"a requestId held, 2nd chunk":  append(couponItems(31, many), Item{Coupon: Coupon{UserID: held[0].UserID, TemplateID: 30, RedemptionID: "another", ReceiveCount: 2, Source: usercoupon.SourceCLAIM, At: held[0].At, End: held[0].End, RequestID: "held"}}),
		} {
			_, err := insertAll(ctx, db, items, p.vitess)
			if !errors.Is(err, errUniqueKey) {
				t.Errorf("%s, %s: %v, want errUniqueKey", p.name, name, err)
			}
			for tpl, want := range map[int64]int{30: 1, 31: 0, 32: 0} {
				if n := len(couponRows(t, sqlDB, tpl)); n != want {
					t.Errorf("%s, %s: template %d holds %d rows, want %d", p.name, name, tpl, n, want)
				}
			}
		}
	}
}

// A server refusing LOAD DATA LOCAL INFILE (local_infile=OFF) gets the coupons by INSERT, in the
// same transaction, and no further LOAD DATA. The refusal is the server's own: a proxy clears
// CLIENT_LOCAL_FILES from the client's handshake, which MariaDB and MySQL answer as they do with
// local_infile=OFF.
func TestARefusedLoadFallsBackToInsert(t *testing.T) {
	_, sqlDB, dsn := testutil.MySQL(t, "issue_insert_refused")
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = refusingProxy(t, cfg.Addr)
	db, _, err := store.OpenMySQL(cfg.FormatDSN(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t.Cleanup(func() { localInfileRefused.Store(false) })
	ctx := context.Background()
	for i := range 2 {
		tpl := int64(40 + i)
		items := couponItems(tpl, nastyRequestIDs)
		if _, err := insertAll(ctx, db, items, false); err != nil {
			t.Fatal(err)
		}
		if !localInfileRefused.Load() {
			t.Fatal("the refusal is not remembered")
		}
		if n := len(couponRows(t, sqlDB, tpl)); n != len(items) {
			t.Fatalf("%d rows, want %d", n, len(items))
		}
	}
}

// refusingProxy forwards connections to the MySQL server at addr, clearing CLIENT_LOCAL_FILES in
// each client's handshake response, and returns its own address.
func refusingProxy(t *testing.T, addr string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				defer s.Close()
				go io.Copy(c, s)
				var h [4]byte // the packet header: 3 bytes of length, the sequence number
				if _, err := io.ReadFull(c, h[:]); err != nil {
					return
				}
				p := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
				if _, err := io.ReadFull(c, p); err != nil || len(p) == 0 {
					return
				}
				p[0] &^= 0x80 // the capability flags' CLIENT_LOCAL_FILES
				if _, err := s.Write(append(h[:], p...)); err != nil {
					return
				}
				io.Copy(s, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// A single-row INSERT into user_coupon (a claim's coupon) does not wait for a LOAD DATA of coupons
// in progress: the id has no AUTO_INCREMENT, so the load takes no table-level AUTO-INC lock. The
// load is held open by its reader (one row sent, then nothing until the probe is done).
func TestALoadDoesNotBlockASingleInsert(t *testing.T) {
	_, sqlDB, _ := testutil.MySQL(t, "issue_insert_autoinc")
	var mode int
	if err := sqlDB.QueryRow("SELECT @@innodb_autoinc_lock_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode == 2 {
		t.Skip("innodb_autoinc_lock_mode 2 takes no table-level AUTO-INC lock for a LOAD DATA, AUTO_INCREMENT or not: nothing to show")
	}
	ctx := context.Background()
	tx, err := sqlDB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows := make([]ent.UserCoupon, 2)
	header := int64(1)
	for i := range rows {
		rows[i] = ent.UserCoupon{ID: int64(100 + i), UserID: int64(100 + i), TemplateID: 50, RedemptionID: fmt.Sprint("load-", i),
			ReceiveCount: 1, Source: usercoupon.SourceDISTRIBUTION, Status: usercoupon.StatusUNUSED, StockBatchID: &header}
	}
	first := loadLines.appendRows(nil, rows[:1])
	rest := loadLines.appendRows(nil, rows[1:])
	release := make(chan struct{})
	pr, pw := io.Pipe()
	go func() {
		pw.Write(append(first, '\n'))
		<-release
		pw.Write(rest)
		pw.Close()
	}()
	mysql.RegisterReaderHandler("test-held-load", func() io.Reader { return pr })
	defer mysql.DeregisterReaderHandler("test-held-load")
	loaded := make(chan error, 1)
	go func() {
		res, err := tx.ExecContext(ctx, loadSQLHead+"test-held-load"+loadSQLTail)
		if err == nil {
			var n int64
			if n, err = res.RowsAffected(); err == nil && n != 2 {
				err = fmt.Errorf("%d rows loaded, want 2", n)
			}
		}
		loaded <- err
	}()
	time.Sleep(200 * time.Millisecond) // the first row inserted, the load waiting for the rest
	select {
	case err := <-loaded:
		t.Fatalf("the LOAD DATA ended before its last row: %v", err)
	default:
	}
	probe := make(chan error, 1)
	began := time.Now()
	go func() {
		_, err := sqlDB.ExecContext(ctx, "INSERT INTO user_coupon (id, created_at, updated_at, user_id, template_id, redemption_id, "+
			"receive_count, source, valid_start_time, valid_end_time) VALUES (7, NOW(), NOW(), 7, 51, 'probe', 1, 'CLAIM', NOW(), NOW())")
		probe <- err
	}()
	select {
	case err := <-probe:
		if err != nil {
			t.Fatalf("probe insert: %v", err)
		}
	case <-time.After(3 * time.Second):
		close(release)
		<-loaded
		t.Fatalf("the probe insert waited %v for the LOAD DATA", time.Since(began))
	}
	close(release)
	if err := <-loaded; err != nil {
		t.Fatalf("LOAD DATA: %v", err)
	}
}
