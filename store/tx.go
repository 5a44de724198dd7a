package store

import (
	"context"
	"fmt"

	"coupond/ent"
)

// WithTx runs fn in a transaction, committing when fn returns nil and rolling back otherwise.
// afterCommitFailure, when not nil, runs when fn succeeded but the commit did not (to undo
// side effects outside the database).
func WithTx(ctx context.Context, db *ent.Client, fn func(tx *ent.Tx) error, afterCommitFailure func()) error {
	tx, err := db.Tx(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		if afterCommitFailure != nil {
			afterCommitFailure()
		}
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
