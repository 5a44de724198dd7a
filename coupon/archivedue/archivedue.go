// Package archivedue writes the archive's queue, table archive_due: the transitions that make a
// coupon due for the archive — to EXPIRED (the expiry task and sweep, a release or refund past the
// coupon's end), to USED (a payment's confirmation), and the refund that ends a USED coupon's
// last live settlement under FORFEIT — add it in their own transaction, and coupon/archive walks
// the queue oldest first instead of scanning user_coupon. A queue row lives on its coupon's user
// shard (it carries user_id), so the write never leaves the transition's shard.
package archivedue

import (
	"context"
	"fmt"
	"time"

	"coupond/ent"
)

// Coupon names a coupon of the queue.
type Coupon struct{ UserID, ID int64 }

// Add records that the coupons became due at at (their transition's time, as its updated_at),
// through q — the transition's transaction's client (tx.ArchiveDue), so the entry commits or
// rolls back with the transition. A coupon already queued takes at, so a coupon that came back
// (a refund) and ended again is due from its last end. One statement; nothing for no coupons.
func Add(ctx context.Context, q *ent.ArchiveDueClient, at time.Time, coupons ...Coupon) error {
	if len(coupons) == 0 {
		return nil
	}
	rows := make([]*ent.ArchiveDueCreate, len(coupons))
	for i, c := range coupons {
		rows[i] = q.Create().SetID(c.ID).SetUserID(c.UserID).SetEndedAt(at)
	}
	if err := q.CreateBulk(rows...).OnConflict().UpdateEndedAt().Exec(ctx); err != nil {
		return fmt.Errorf("archive queue: add %d coupons: %w", len(coupons), err)
	}
	return nil
}
