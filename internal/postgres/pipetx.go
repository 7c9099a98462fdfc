package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pipeTx is a transaction on one connection of the pool whose BEGIN travels with its
// first statements, and whose COMMIT may travel with its last batch (commitNext), instead
// of each taking a round trip of its own: the three transactions of a message (Accept,
// FinishTurnWith, MarkSent) cost two or three round trips each, not four or more. The
// statements of a batch run in order and an error stops the rest, COMMIT included (the
// server skips to the batch's end), so a transaction commits only when every statement
// before its COMMIT succeeded. It implements pgx.Tx for the helpers that take one.
type pipeTx struct {
	conn   *pgx.Conn
	begun  bool // BEGIN was sent
	commit bool // the next batch carries COMMIT
	ended  bool // COMMIT was sent
}

// inPipeTx runs fn in a pipeTx and commits it when fn returns nil and no batch of fn's
// carried the COMMIT; it rolls back otherwise. Like inTx, a transaction that lost a race
// (a serialization failure, a deadlock) is run again, from the start, a few times.
func (db *DB) inPipeTx(ctx context.Context, fn func(tx *pipeTx) error) error {
	for attempt := 0; ; attempt++ {
		err := db.pipeTxOnce(ctx, fn)
		if err == nil || attempt == 4 || !retryable(err) || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
	}
}

func (db *DB) pipeTxOnce(ctx context.Context, fn func(tx *pipeTx) error) error {
	c, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection left inside a transaction (a rollback that failed) is closed by the
	// pool on release rather than reused.
	defer c.Release()
	tx := &pipeTx{conn: c.Conn()}
	err = fn(tx)
	if err == nil && tx.begun && !tx.ended {
		err = tx.Commit(ctx)
	}
	if err == nil && tx.conn.PgConn().TxStatus() != 'I' {
		err = pgx.ErrTxCommitRollback // a COMMIT in a batch that did not end the transaction
	}
	if err != nil && !tx.conn.IsClosed() && tx.conn.PgConn().TxStatus() != 'I' {
		_, _ = tx.conn.Exec(context.WithoutCancel(ctx), "rollback")
	}
	return err
}

// commitNext makes the next batch sent end with the COMMIT of the transaction. The
// statements sent after it run outside the transaction, each committed on its own.
func (tx *pipeTx) commitNext() { tx.commit = true }

// checkCommit fails a COMMIT that rolled back (the transaction had failed).
func checkCommit(ct pgconn.CommandTag) error {
	if ct.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return nil
}

// SendBatch sends b, after BEGIN when the transaction has not begun and before COMMIT
// after commitNext. The results read are b's; COMMIT's is read by Close.
func (tx *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if tx.begun && !tx.commit {
		return tx.conn.SendBatch(ctx, b)
	}
	qs := make([]*pgx.QueuedQuery, 0, len(b.QueuedQueries)+2)
	begin := !tx.begun
	if begin {
		qs = append(qs, &pgx.QueuedQuery{SQL: "begin"})
		tx.begun = true
	}
	qs = append(qs, b.QueuedQueries...)
	if tx.commit {
		commit := &pgx.QueuedQuery{SQL: "commit"}
		commit.Exec(checkCommit)
		qs = append(qs, commit)
		tx.commit, tx.ended = false, true
	}
	res := tx.conn.SendBatch(ctx, &pgx.Batch{QueuedQueries: qs})
	if begin {
		_, _ = res.Exec() // an error is the next read's too
	}
	return res
}

// Exec runs sql in the transaction; the first statement carries BEGIN.
func (tx *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if tx.begun && !tx.commit {
		return tx.conn.Exec(ctx, sql, args...)
	}
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	res := tx.SendBatch(ctx, b)
	ct, err := res.Exec()
	return ct, errors.Join(err, res.Close())
}

// QueryRow runs sql in the transaction; the first statement carries BEGIN.
func (tx *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if tx.begun && !tx.commit {
		return tx.conn.QueryRow(ctx, sql, args...)
	}
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	return batchRow{tx.SendBatch(ctx, b)}
}

// batchRow is the row of a batch of one query, which it closes once scanned.
type batchRow struct{ res pgx.BatchResults }

func (r batchRow) Scan(dest ...any) error {
	err := r.res.QueryRow().Scan(dest...)
	if cerr := r.res.Close(); err == nil || errors.Is(err, pgx.ErrNoRows) && cerr != nil {
		err = cerr
	}
	return err
}

// Query runs sql in the transaction (after a BEGIN of its own when it is the first
// statement: the hot paths start with a batch or a single row).
func (tx *pipeTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := tx.beginAlone(ctx); err != nil {
		return nil, err
	}
	return tx.conn.Query(ctx, sql, args...)
}

// beginAlone sends BEGIN, or COMMIT after commitNext, on its own when due.
func (tx *pipeTx) beginAlone(ctx context.Context) error {
	if tx.begun && !tx.commit {
		return nil
	}
	if tx.commit {
		return tx.Commit(ctx)
	}
	if _, err := tx.conn.Exec(ctx, "begin"); err != nil {
		return err
	}
	tx.begun = true
	return nil
}

// CopyFrom copies in the transaction.
func (tx *pipeTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if err := tx.beginAlone(ctx); err != nil {
		return 0, err
	}
	return tx.conn.CopyFrom(ctx, table, columns, src)
}

// Commit commits the transaction now.
func (tx *pipeTx) Commit(ctx context.Context) error {
	if !tx.begun || tx.ended {
		tx.commit, tx.ended = false, true
		return nil
	}
	tx.commit, tx.ended = false, true
	ct, err := tx.conn.Exec(ctx, "commit")
	if err != nil {
		return err
	}
	return checkCommit(ct)
}

// Rollback rolls the transaction back now.
func (tx *pipeTx) Rollback(ctx context.Context) error {
	if !tx.begun || tx.ended {
		return nil
	}
	tx.commit, tx.ended = false, true
	_, err := tx.conn.Exec(ctx, "rollback")
	return err
}

// Begin is not supported: no helper nests transactions.
func (tx *pipeTx) Begin(context.Context) (pgx.Tx, error) {
	return nil, errors.New("postgres: no nested transaction in a pipelined one")
}

func (tx *pipeTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

func (tx *pipeTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return tx.conn.Prepare(ctx, name, sql)
}

func (tx *pipeTx) Conn() *pgx.Conn { return tx.conn }

var _ pgx.Tx = (*pipeTx)(nil)
