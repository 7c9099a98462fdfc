package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

// partColumns are the columns scanPart reads from outbox.
const partColumns = `id, chat_id, thread_id, key, html, plain, reply_to, created, kind, task, attempts, turn_id`

const (
	// queryPendingParts reads the outbox_pending partial index: unsent, unfailed rows only.
	queryPendingParts = `SELECT ` + partColumns + `
		FROM outbox WHERE agent = ? AND sent_at IS NULL AND failed_at IS NULL ORDER BY id LIMIT +?`
	// queryPartByKey reads one part through the UNIQUE (agent, key) index, and whether it
	// is still pending.
	queryPartByKey = `SELECT ` + partColumns + `, sent_at IS NULL AND failed_at IS NULL
		FROM outbox WHERE agent = ? AND key = ?`
	queryPart = `SELECT agent, chat_id, thread_id, sent_at IS NOT NULL OR failed_at IS NOT NULL
		FROM outbox WHERE id = ?`
	markSent   = `UPDATE outbox SET sent_at = ?, tg_message_id = ? WHERE id = ?`
	markFailed = `UPDATE outbox SET failed_at = ?, failed_reason = ? WHERE id = ?`
)

// PendingParts returns up to limit parts of agent that are neither sent nor failed, in
// enqueue (id) order. A limit <= 0 returns none.
func (db *DB) PendingParts(ctx context.Context, agent string, limit int) ([]mynah.OutPart, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.stmts.pendingParts.QueryContext(ctx, agent, limit)
	if err != nil {
		return nil, fail(ctx, err, "pending parts of %s", agent)
	}
	defer rows.Close()
	var out []mynah.OutPart
	for rows.Next() {
		p := mynah.OutPart{Agent: agent}
		if err := scanPart(rows, &p); err != nil {
			return nil, fail(ctx, err, "pending parts of %s", agent)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "pending parts of %s", agent)
	}
	return out, nil
}

// scanPart reads partColumns, then more, into p.
func scanPart(s scanner, p *mynah.OutPart, more ...any) error {
	var chat, replyTo int64
	var created sql.NullInt64
	var kind string
	var task sql.NullString
	var turn sql.NullInt64
	dest := append([]any{&p.ID, &chat, &p.ThreadID, &p.Key, &p.HTML, &p.Plain, &replyTo, &created, &kind, &task, &p.Attempts, &turn}, more...)
	if err := s.Scan(dest...); err != nil {
		return err
	}
	p.TurnID = turn.Int64
	p.Chat, p.ReplyTo, p.Created = mynah.ChatID(chat), mynah.MessageID(replyTo), storecodec.FromMillis(created)
	return storecodec.DecodeTask(p, kind, task)
}

// storedPart returns agent's part with key as stored, and whether it is still pending
// (neither sent nor failed); a key never enqueued is not pending.
func (db *DB) storedPart(ctx context.Context, tx *txn, agent, key string) (mynah.OutPart, bool, error) {
	p := mynah.OutPart{Agent: agent}
	var pending bool
	err := scanPart(tx.queryRow(ctx, db.stmts.queryPartByKey, agent, key), &p, &pending)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return mynah.OutPart{}, false, nil
	case err != nil:
		return mynah.OutPart{}, false, err
	}
	return p, pending, nil
}

// errSettled stops a transaction on a part already sent or failed; it never escapes.
var errSettled = errors.New("part already settled")

// settle runs fn in a transaction on a part that is still pending. A part already sent or
// failed is left as it is and settle returns nil; an unknown part is mynah.ErrNotFound.
func (db *DB) settle(ctx context.Context, partID int64, fn func(tx *txn, agent string, chat mynah.ChatID, thread int64) error) error {
	err := db.inTx(ctx, func(tx *txn) error {
		var (
			agent        string
			chat, thread int64
			settled      bool
		)
		if err := tx.queryRow(ctx, db.stmts.queryPart, partID).Scan(&agent, &chat, &thread, &settled); err != nil {
			return err
		}
		if settled {
			return errSettled
		}
		return fn(tx, agent, mynah.ChatID(chat), thread)
	})
	if errors.Is(err, errSettled) {
		return nil
	}
	return err
}

// Hold lets every send go ahead: one process serves a SQLite store, so no other takes
// its chats over (see mynah.Outbox).
func (db *DB) Hold(context.Context, int64) error { return nil }

// MarkSent records that the part was delivered as sent and, in the same transaction,
// stores sent as the agent's outgoing message (Outgoing is forced; Chat.ID 0 means the
// part's chat, ThreadID 0 the part's thread, Time zero now; a message already stored
// under sent's id is kept, unless sent.Edited is set: then sent is an edit of it).
// sent.ID, Telegram's message id, must be set. Marking a part that is already sent or
// failed is a no-op; an unknown part is an error wrapping mynah.ErrNotFound.
func (db *DB) MarkSent(ctx context.Context, partID int64, sent mynah.Message) error {
	if sent.ID == 0 {
		return fmt.Errorf("sqlite: mark part %d sent: message has no id", partID)
	}
	err := db.settle(ctx, partID, func(tx *txn, agent string, chat mynah.ChatID, thread int64) error {
		return db.markSentTx(ctx, tx, partID, agent, chat, thread, sent)
	})
	if err != nil {
		return fail(ctx, err, "mark part %d sent", partID)
	}
	return nil
}

// markSentTx records the pending part partID, of agent in chat and thread, as sent as
// message sent, and stores sent as the agent's outgoing message (see MarkSent).
func (db *DB) markSentTx(ctx context.Context, tx *txn, partID int64, agent string, chat mynah.ChatID, thread int64, sent mynah.Message) error {
	now := db.now()
	if _, err := tx.exec(ctx, db.stmts.markSent, now.UnixMilli(), int64(sent.ID), partID); err != nil {
		return err
	}
	m := sent
	m.Agent, m.Outgoing, m.Time = agent, true, storecodec.OrNow(m.Time, db.now)
	if m.Chat.ID == 0 {
		m.Chat.ID = chat
	}
	if m.ThreadID == 0 {
		m.ThreadID = thread
	}
	c := m.Chat
	if _, err := tx.exec(ctx, db.stmts.ensureChat, agent, int64(c.ID), string(c.Type), c.Title, c.Username,
		boolInt(c.IsForum), now.UnixMilli()); err != nil {
		return err
	}
	var err error
	if !m.Edited.IsZero() { // the part edited a message the agent sent before
		err = db.editMessage(ctx, tx, agent, c.ID, &m)
	} else {
		_, err = db.storeMessage(ctx, tx, agent, c.ID, &m)
	}
	if err != nil {
		return err
	}
	return db.shareSent(ctx, tx, agent, &m) // crew.go: the other members of its crews see it
}

// MarkFailed records that the part will never be delivered, with reason for operators;
// it leaves PendingParts. Marking a part already sent or failed is a no-op; an unknown
// part is an error wrapping mynah.ErrNotFound.
func (db *DB) MarkFailed(ctx context.Context, partID int64, reason string) error {
	err := db.settle(ctx, partID, func(tx *txn, _ string, _ mynah.ChatID, _ int64) error {
		_, err := tx.exec(ctx, db.stmts.markFailed, db.now().UnixMilli(), reason, partID)
		return err
	})
	if err != nil {
		return fail(ctx, err, "mark part %d failed", partID)
	}
	return nil
}
