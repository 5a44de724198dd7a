package reconcile

import "context"

// ReadOnce reads the books once, without the re-check Check and Run do: the tests' way to show
// that one read is exact on its own while claims and batches are in flight.
func (r *Reconciler) ReadOnce(ctx context.Context, id int64, users []int64) (*Report, error) {
	return r.read(ctx, id, page{users: users})
}

// Between runs afterView after each read's step 1 (the MySQL view) and afterSnapshot after its
// Redis snapshot (nil: nothing).
func (r *Reconciler) Between(afterView, afterSnapshot func()) {
	r.afterView, r.afterSnapshot = afterView, afterSnapshot
}

// BetweenShardReads runs fn after each stock shard's script of a snapshot (nil: nothing).
func (r *Reconciler) BetweenShardReads(fn func()) { r.afterShardRead = fn }
