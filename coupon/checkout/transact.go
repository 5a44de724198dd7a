package checkout

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"coupond/ent"

	"github.com/go-sql-driver/mysql"
)

// write is one statement of a checkout transaction. A compare-and-set (cas) must change exactly
// one row: none means a concurrent call moved it (errLost, the caller reads again), more is an
// error. Any other write (an upsert) may change any number.
type write struct {
	what  string // what it writes, for errors
	query string // one statement, its values as ? placeholders
	args  []any
	cas   bool
}

// check holds w to the rows it changed, n.
func (w write) check(n int64) error {
	switch {
	case !w.cas:
		return nil
	case n == 0:
		return errLost
	case n != 1:
		return fmt.Errorf("%s: %d rows changed, want 1", w.what, n)
	}
	return nil
}

// transact runs one checkout transaction: writes in order, each checked (write.check), then
// (when not nil) then's reads on the same transaction, and COMMIT when all succeeded; anything
// else rolls it back. On Config.DB's pool START TRANSACTION and the writes go to MySQL as one
// query (batched), otherwise one statement at a time. A deadlock or lock-wait timeout is errLost;
// a failed commit is errCommit as well.
func (s *Service) transact(ctx context.Context, writes []write, then func(q querier) error) error {
	if s.multi != nil {
		return s.batched(ctx, writes, then)
	}
	return s.inTx(ctx, s.lockTx, func(tx *ent.Tx) error {
		for _, w := range writes {
			if err := execWrite(ctx, tx, w); err != nil {
				return err
			}
		}
		if then != nil {
			return then(tx)
		}
		return nil
	})
}

// execWrite runs w alone in tx and checks it.
func execWrite(ctx context.Context, tx *ent.Tx, w write) error {
	res, err := tx.ExecContext(ctx, w.query, w.args...)
	if err != nil {
		return fmt.Errorf("%s: %w", w.what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", w.what, err)
	}
	return w.check(n)
}

// batched is transact on a connection of Config.DB: "START TRANSACTION; w1; w2; …" in one round
// trip (the driver reports each statement's changed rows), then's reads, COMMIT. MySQL stops a
// multi-statement query at its first failing statement; the transaction is then rolled back like
// any other that fails. A connection whose ROLLBACK or COMMIT did not answer is closed, never
// returned to the pool with a transaction possibly open.
func (s *Service) batched(ctx context.Context, writes []write, then func(q querier) error) error {
	conn, err := s.multi.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", lostRace(err))
	}
	defer conn.Close()
	err = execBatch(ctx, conn, writes)
	if err == nil && then != nil {
		err = then(conn)
	}
	if err == nil {
		if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
			discard(conn)
			return fmt.Errorf("%w: %w", errCommit, lostRace(err))
		}
		return nil
	}
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
		discard(conn)
	}
	return lostRace(err)
}

// execBatch sends START TRANSACTION and writes as one query on conn and checks each write.
func execBatch(ctx context.Context, conn *sql.Conn, writes []write) error {
	var b strings.Builder
	b.WriteString("START TRANSACTION")
	var args []driver.NamedValue
	for _, w := range writes {
		b.WriteString(";\n")
		b.WriteString(w.query)
		for _, a := range w.args {
			v, err := driver.DefaultParameterConverter.ConvertValue(a)
			if err != nil {
				return fmt.Errorf("%s: argument %d: %w", w.what, len(args)+1, err)
			}
			args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
		}
	}
	var changed []int64
	err := conn.Raw(func(dc any) error {
		res, err := dc.(driver.ExecerContext).ExecContext(ctx, b.String(), args)
		if err != nil {
			return err
		}
		r, ok := res.(mysql.Result)
		if !ok {
			return errors.New("the driver does not report each statement's changed rows")
		}
		changed = r.AllRowsAffected()
		return nil
	})
	if err != nil {
		whats := make([]string, len(writes))
		for i, w := range writes {
			whats[i] = w.what
		}
		return fmt.Errorf("%s: %w", strings.Join(whats, ", "), err)
	}
	if len(changed) != len(writes)+1 {
		return fmt.Errorf("%d results for %d statements", len(changed), len(writes)+1)
	}
	for i, w := range writes {
		if err := w.check(changed[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// discard closes conn's driver connection instead of returning it to the pool.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
}
