// Package archivedue writes the archive's queue, table archive_due: the transitions that make a
// coupon due for the archive — to EXPIRED (the expiry task and sweep, a release or refund past the
// coupon's end), to USED (a payment's confirmation), and the refund that ends a USED coupon's
// last live settlement under FORFEIT — add it in their own transaction, and coupon/archive walks
// the queue oldest first instead of scanning user_coupon. A queue row lives on its coupon's user
// shard (it carries user_id), so the write never leaves the transition's shard.
package archivedue

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Coupon names a coupon of the queue.
type Coupon struct{ UserID, ID int64 }

// Execer runs a statement: the transition's transaction (ent's Tx), or a connection in one.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Add records that the coupons became due at at (their transition's time, as its updated_at),
// through tx — the transition's transaction, so the entry commits or rolls back with the
// transition. One statement (Statement); nothing for no coupons.
func Add(ctx context.Context, tx Execer, at time.Time, coupons ...Coupon) error {
	if len(coupons) == 0 {
		return nil
	}
	query, args := Statement(at, coupons...)
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("archive queue: add %d coupons: %w", len(coupons), err)
	}
	return nil
}

// Statement is the one statement that records that the coupons (at least one) became due at at:
// a coupon already queued takes at, so a coupon that came back (a refund) and ended again is due
// from its last end.
func Statement(at time.Time, coupons ...Coupon) (string, []any) {
	var b strings.Builder
	b.WriteString("INSERT INTO `archive_due` (`ended_at`, `id`, `user_id`) VALUES ")
	args := make([]any, 0, 3*len(coupons))
	for i, c := range coupons {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?)")
		args = append(args, at, c.ID, c.UserID)
	}
	b.WriteString(" ON DUPLICATE KEY UPDATE `ended_at` = VALUES(`ended_at`)")
	return b.String(), args
}
