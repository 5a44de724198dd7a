package sqlcapture

import (
	"database/sql/driver"
	"strings"
	"testing"
	"time"
)

func args(vs ...driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(vs))
	for i, v := range vs {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

// Render keeps what routes (user ids, shops, enum values) and replaces what changes run to run.
func TestRender(t *testing.T) {
	got := Render("SELECT * FROM user_coupon WHERE user_id = ? AND id = ? AND status = ? AND code = ? AND valid_end_time < ? AND note = '?' AND x = 2128694973275574273",
		args(int64(11), int64(2128694973275574273), "UNUSED", "FKSWKWYPKDOPAOTA", time.Now()))
	want := "SELECT * FROM user_coupon WHERE user_id = 11 AND id = " + StableID + " AND status = 'UNUSED' AND code = " + StableString +
		" AND valid_end_time < " + StableTime + " AND note = '?' AND x = " + StableID + ";"
	if got != want {
		t.Fatalf("Render:\n got %s\nwant %s", got, want)
	}
}

// A transaction's statements are one block, ended as it ended; autocommit statements are blocks of their own.
func TestBlocks(t *testing.T) {
	r := NewRecorder()
	r.Path("p")
	w := &wrapped{rec: r}
	w.statement("SELECT 1", nil)
	w.inTx = true
	w.statement("UPDATE t SET a = ? WHERE user_id = ?", args(int64(1), int64(7)))
	w.end("ROLLBACK")
	r.Path("")
	w.statement("SELECT 2", nil) // no path: dropped
	f := r.File("p")
	if !strings.Contains(f, "-- autocommit\nSELECT 1;\n") || !strings.Contains(f, "-- tx\nBEGIN;\nUPDATE t SET a = 1 WHERE user_id = 7;\nROLLBACK;\n") || strings.Contains(f, "SELECT 2") {
		t.Fatalf("file:\n%s", f)
	}
}
