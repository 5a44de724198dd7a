package issue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"coupond/ent"
	"coupond/ent/stockbatchfence"
	"coupond/idgen"
	"coupond/store"
)

// ErrFenced is a claim batch's T2 refused because the sweep settled its header's share of the
// group's shard first (the persister stalled or died between T1 and this T2): its items are
// retried as a new batch.
var ErrFenced = errors.New("issue: the sweep settled this reservation's shard before its write")

// fenceWrite takes, in a claim batch's T2 transaction tx, the fence of the header's share of the
// group's shard (whose first item's user is user): it inserts the group's fence row and deletes it
// again, so nothing stays, but the row's unique key is locked until tx ends. A sweep fencing the
// same share (fenceSweep) waits for tx and then counts its coupons; one that fenced it before
// makes the insert fail, and tx with ErrFenced.
func fenceWrite(ctx context.Context, tx *ent.Tx, batch, user int64) error {
	err := tx.StockBatchFence.Create().SetBatchID(batch).SetUserID(user).SetState(stockbatchfence.StateWRITTEN).Exec(ctx)
	if ent.IsConstraintError(err) {
		return ErrFenced
	}
	if err != nil {
		return fmt.Errorf("fence of stock batch %d: %w", batch, err)
	}
	if _, err := tx.StockBatchFence.Delete().Where(stockbatchfence.UserID(user), stockbatchfence.BatchID(batch)).Exec(ctx); err != nil {
		return fmt.Errorf("fence of stock batch %d: %w", batch, err)
	}
	return nil
}

// fenceSweep fences the header's share of the shard of user (the first user of its items there),
// before the sweep counts that shard's coupons of it: once the FENCED row is in, no T2 of the
// share can commit any more, and one in flight has committed (the insert waited for its lock).
// The row stays (a late T2 must still fail); fencing an already fenced share does nothing. Two
// sweeps fencing the same share at once can deadlock on its unique key (InnoDB's locks for a
// duplicate insert), and MySQL fails one: the insert changes nothing twice, so the loser runs it
// again, up to fenceAttempts times.
func fenceSweep(ctx context.Context, db *ent.Client, batch, user int64) error {
	for attempt := 1; ; attempt++ {
		// INSERT IGNORE: ent's OnConflict().Ignore() writes ON DUPLICATE KEY UPDATE of the key's own
		// columns, which Vitess refuses on a vindex column.
		_, err := db.ExecContext(ctx, "INSERT IGNORE INTO stock_batch_fence (id, batch_id, user_id, state, created_at) VALUES (?, ?, ?, ?, ?)",
			idgen.Next(), batch, user, stockbatchfence.StateFENCED, time.Now().UTC())
		if err == nil {
			return nil
		}
		if !store.IsLockConflict(err) || attempt == fenceAttempts {
			return fmt.Errorf("fence of stock batch %d: %w", batch, err)
		}
	}
}

// fenceAttempts bounds the runs of a sweep's fence insert that MySQL fails as a deadlock.
const fenceAttempts = 3
