// Package ledger is the template-keyed tallies coupon/stats seals a day from, so that it never
// scans coupons by template: coupons issued (issued_ledger, on the template's shard, added by the
// reservation batch's T3) and coupons expired (expired_ledger, on a user shard, added by the
// transaction that expires them), each by the UTC quarter hour of the event (Bucket).
//
// Quarter hours, not days: a stats day is a day of keys.StatsZone, which a restart may change, and
// every zone's day starts on a quarter hour of UTC (offsets such as +5:30, +5:45 and +12:45
// included), so a day is exactly the sum of the buckets in [its start, its end) whichever zone it
// is read in (Count refuses bounds off a quarter hour rather than miscount).
package ledger

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"coupond/ent"
)

// Width is a bucket's span.
const Width = 15 * time.Minute

// Bucket is the bucket t is counted in: the start of its quarter hour, in UTC.
func Bucket(t time.Time) time.Time { return t.UTC().Truncate(Width) }

// AddIssued adds, in tx on the template's shard, the coupons of one reservation batch (source
// "CLAIM" or "DISTRIBUTION") created at the times in created to the template's issued_ledger
// buckets, in one statement (rows of a bucket are taken in bucket order, so two batches of the
// template never wait on each other's rows crosswise).
func AddIssued(ctx context.Context, tx *ent.Tx, shop, templateID int64, source string, created []time.Time) error {
	counts := map[time.Time]int{}
	for _, t := range created {
		counts[Bucket(t)]++
	}
	if len(counts) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("INSERT INTO issued_ledger (shop_number, template_id, bucket, source, n) VALUES ")
	args := make([]any, 0, 5*len(counts))
	for i, bucket := range slices.SortedFunc(maps.Keys(counts), time.Time.Compare) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?)")
		args = append(args, shop, templateID, bucket, source, counts[bucket])
	}
	b.WriteString(" ON DUPLICATE KEY UPDATE n = n + VALUES(n)")
	if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
		return fmt.Errorf("ledger: issued coupons of template %d: %w", templateID, err)
	}
	return nil
}

// AddExpired adds n coupons of the template expired at at to expired_ledger, in tx on the user
// shard of shardUser (a user of the coupons' shard: the row lives there, keyed by it).
func AddExpired(ctx context.Context, tx *ent.Tx, templateID, shardUser int64, at time.Time, n int) error {
	if n == 0 {
		return nil
	}
	query, args := ExpiredStatement(templateID, shardUser, at, n)
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("ledger: expired coupons of template %d: %w", templateID, err)
	}
	return nil
}

// ExpiredStatement is AddExpired's one statement.
func ExpiredStatement(templateID, shardUser int64, at time.Time, n int) (string, []any) {
	return "INSERT INTO expired_ledger (user_id, template_id, bucket, n) VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE n = n + VALUES(n)",
		[]any{shardUser, templateID, Bucket(at), n}
}

// Counts is what the ledgers hold of a template over a span of buckets.
type Counts struct {
	IssuedClaim, IssuedDistribution, Expired int
}

// Count sums the template's buckets in [from, to) (both on a quarter hour): issued from its shop's
// shard, expired from every user shard (a scatter read, once per template-day).
func Count(ctx context.Context, db *ent.Client, shop, templateID int64, from, to time.Time) (Counts, error) {
	var c Counts
	if !Bucket(from).Equal(from) || !Bucket(to).Equal(to) {
		return c, fmt.Errorf("ledger: [%s, %s) is not on quarter hours", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	from, to = from.UTC(), to.UTC()
	rows, err := db.QueryContext(ctx, "SELECT source, SUM(n) FROM issued_ledger WHERE shop_number = ? AND template_id = ? "+
		"AND bucket >= ? AND bucket < ? GROUP BY source", shop, templateID, from, to)
	if err != nil {
		return c, fmt.Errorf("ledger: issued coupons of template %d: %w", templateID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var source string
		var n int
		if err := rows.Scan(&source, &n); err != nil {
			return c, err
		}
		if source == "DISTRIBUTION" {
			c.IssuedDistribution = n
		} else {
			c.IssuedClaim = n
		}
	}
	if err := rows.Err(); err != nil {
		return c, err
	}
	rows, err = db.QueryContext(ctx, "SELECT COALESCE(SUM(n), 0) FROM expired_ledger WHERE template_id = ? AND bucket >= ? AND bucket < ?",
		templateID, from, to)
	if err != nil {
		return c, fmt.Errorf("ledger: expired coupons of template %d: %w", templateID, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&c.Expired); err != nil {
			return c, err
		}
	}
	return c, rows.Err()
}
