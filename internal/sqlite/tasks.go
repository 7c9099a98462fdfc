package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

const (
	markDone   = `UPDATE outbox SET sent_at = ? WHERE id = ?`
	retryPart  = `UPDATE outbox SET attempts = attempts + 1, failed_reason = ? WHERE id = ? RETURNING attempts`
	queryDueAt = `SELECT min(due) FROM turns WHERE agent = ? AND done_at IS NULL AND due > ?`
	setPreview = `UPDATE turns SET preview_id = ? WHERE id = ?`
)

// MarkDone records a part that sends no message as carried out and, in the same
// transaction, queues then (the reminder a schedule part sets) when it is non-nil. A part
// already settled is left as it is, and then is not queued again.
func (db *DB) MarkDone(ctx context.Context, partID int64, then *mynah.Turn) error {
	err := db.settle(ctx, partID, func(tx *txn, agent string, chat mynah.ChatID, thread int64) error {
		now := db.now()
		if _, err := tx.exec(ctx, db.stmts.markDone, now.UnixMilli(), partID); err != nil {
			return err
		}
		if then == nil {
			return nil
		}
		t := *then
		if t.Chat == 0 {
			t.Chat, t.ThreadID = chat, thread
		}
		_, err := db.insertTurnTx(ctx, tx, agent, t)
		return err
	})
	if err != nil {
		return fail(ctx, err, "mark part %d done", partID)
	}
	return nil
}

// RetryPart counts a failed attempt of the part and returns how many there were.
func (db *DB) RetryPart(ctx context.Context, partID int64, reason string) (int, error) {
	var n int
	err := db.inTx(ctx, func(tx *txn) error {
		return tx.queryRow(ctx, db.stmts.retryPart, reason, partID).Scan(&n)
	})
	if err != nil {
		return 0, fail(ctx, err, "count a failed attempt of part %d", partID)
	}
	return n, nil
}

// NextDue returns when agent's earliest turn that is not due at now falls due; zero when
// none waits.
func (db *DB) NextDue(ctx context.Context, agent string, now time.Time) (time.Time, error) {
	var due sql.NullInt64
	if err := db.stmts.dueAt.QueryRowContext(ctx, agent, now.UnixMilli()).Scan(&due); err != nil {
		return time.Time{}, fail(ctx, err, "next due turn of %s", agent)
	}
	return storecodec.FromMillis(due), nil
}

// insertTurnTx queues t for agent inside tx and returns the turn's id.
func (db *DB) insertTurnTx(ctx context.Context, tx *txn, agent string, t mynah.Turn) (int64, error) {
	buttons, err := storecodec.ButtonsColumn(t.Buttons)
	if err != nil {
		return 0, err
	}
	res, err := tx.exec(ctx, db.stmts.insertTurn, agent, int64(t.Chat), t.ThreadID, int64(t.Target), t.Static,
		int64(t.ReplyTo), storecodec.OrNow(t.Created, db.now).UnixMilli(), notBeforeMillis(t.NotBefore),
		buttons, int64(t.Edit), notBeforeMillis(t.Due))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// SetPreview records msg as the message previewing the turn's answer.
func (db *DB) SetPreview(ctx context.Context, turnID int64, msg mynah.MessageID) error {
	err := db.inTx(ctx, func(tx *txn) error {
		res, err := tx.exec(ctx, db.stmts.setPreview, int64(msg), turnID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, fmt.Errorf("turn %d: %w", turnID, mynah.ErrNotFound))
		}
		return nil
	})
	if err != nil {
		return fail(ctx, err, "set the preview of turn %d", turnID)
	}
	return nil
}
