package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// CheckVitessShards asks the vtgate behind db for its shards (SHOW VITESS_SHARDS) and fails unless
// keyspace has exactly want shards splitting the keyspace-id range into equal parts, the layout
// UserShard assumes (-80, 80- for 2; -40, 40-80, 80-c0, c0- for 4; a single "-" or "0" for 1).
func CheckVitessShards(ctx context.Context, db *sql.DB, keyspace string, want int) error {
	rows, err := db.QueryContext(ctx, "SHOW VITESS_SHARDS")
	if err != nil {
		return fmt.Errorf("SHOW VITESS_SHARDS (is the DSN a vtgate?): %w", err)
	}
	defer rows.Close()
	var all []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		all = append(all, s)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return checkShards(all, keyspace, want)
}

// checkShards is CheckVitessShards' test of the "keyspace/range" names vtgate lists.
func checkShards(all []string, keyspace string, want int) error {
	var got []string
	for _, s := range all {
		if ks, r, ok := strings.Cut(s, "/"); ok && ks == keyspace {
			got = append(got, r)
		}
	}
	sort.Strings(got)
	if want <= 1 {
		if len(got) == 1 && (got[0] == "-" || got[0] == "0") {
			return nil
		}
		return fmt.Errorf("keyspace %s has shards %v; COUPON_MYSQL_USER_SHARDS=%d wants one", keyspace, got, want)
	}
	exp := equalRanges(want)
	if exp == nil {
		return fmt.Errorf("COUPON_MYSQL_USER_SHARDS=%d: not a power of two up to 256, which Vitess's equal ranges need", want)
	}
	sort.Strings(exp)
	if strings.Join(got, " ") != strings.Join(exp, " ") {
		return fmt.Errorf("keyspace %s has shards %v; COUPON_MYSQL_USER_SHARDS=%d wants %v", keyspace, got, want, exp)
	}
	return nil
}

// equalRanges names n equal key ranges as Vitess does (n a power of two ≤ 256), or nil.
func equalRanges(n int) []string {
	if n < 2 || n > 256 || n&(n-1) != 0 {
		return nil
	}
	out := make([]string, n)
	for i := range n {
		start, end := "", ""
		if i > 0 {
			start = fmt.Sprintf("%02x", i*256/n)
		}
		if i < n-1 {
			end = fmt.Sprintf("%02x", (i+1)*256/n)
		}
		out[i] = start + "-" + end
	}
	return out
}
