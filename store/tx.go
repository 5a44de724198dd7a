package store

import (
	"context"
	"errors"
	"fmt"

	"coupond/ent"

	"github.com/go-sql-driver/mysql"
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

// IsLockConflict reports whether err is MySQL failing one of the transactions racing on the same
// rows: a deadlock (1213) or a lock-wait timeout (1205). The loser may run again.
func IsLockConflict(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}
