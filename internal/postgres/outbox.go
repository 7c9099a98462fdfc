package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

// partColumns are the columns scanPart reads from outbox.
const partColumns = `id, chat_id, thread_id, key, html, plain, reply_to, created, kind, task, attempts, turn_id`

const (
	// queryPendingParts reads the outbox_pending partial index: unsent, unfailed rows only.
	queryPendingParts = `SELECT ` + partColumns + `
		FROM outbox WHERE agent = $1 AND sent_at IS NULL AND failed_at IS NULL ORDER BY id LIMIT $2`
	// queryPartByKey reads one part through the UNIQUE (agent, key) index, and whether it
	// is still pending.
	queryPartByKey = `SELECT ` + partColumns + `, sent_at IS NULL AND failed_at IS NULL
		FROM outbox WHERE agent = $1 AND key = $2`
	// queryPart locks the part's row: two instances settling one part serialize.
	queryPart = `SELECT agent, chat_id, thread_id, sent_at IS NOT NULL OR failed_at IS NOT NULL
		FROM outbox WHERE id = $1 FOR UPDATE`
	markSent   = `UPDATE outbox SET sent_at = $1, tg_message_id = $2 WHERE id = $3`
	markFailed = `UPDATE outbox SET failed_at = $1, failed_reason = $2 WHERE id = $3`
	markDone   = `UPDATE outbox SET sent_at = $1 WHERE id = $2`
	retryPart  = `UPDATE outbox SET attempts = attempts + 1, failed_reason = $1 WHERE id = $2 RETURNING attempts`
)

// PendingParts returns up to limit parts of agent that are neither sent nor failed, in
// enqueue (id) order. A limit <= 0 returns none. With Claims on, only the parts of chats
// this instance holds or takes over are returned, so two instances never deliver the same
// part at once.
func (db *DB) PendingParts(ctx context.Context, agent string, limit int) ([]mynah.OutPart, error) {
	if limit <= 0 {
		return nil, nil
	}
	var (
		rows pgx.Rows
		err  error
	)
	if db.claims != nil {
		rows, err = db.claimedParts(ctx, agent, limit)
	} else {
		rows, err = db.pool.Query(ctx, queryPendingParts, agent, limit)
	}
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
func (db *DB) storedPart(ctx context.Context, tx pgx.Tx, agent, key string) (mynah.OutPart, bool, error) {
	p := mynah.OutPart{Agent: agent}
	var pending bool
	err := scanPart(tx.QueryRow(ctx, queryPartByKey, agent, key), &p, &pending)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return mynah.OutPart{}, false, nil
	case err != nil:
		return mynah.OutPart{}, false, err
	}
	return p, pending, nil
}

// errSettled stops a transaction on a part already sent or failed; it never escapes.
var errSettled = errors.New("part already settled")

// settle runs fn in a transaction on a part that is still pending, its row locked. A part
// already sent or failed is left as it is and settle returns nil; an unknown part is
// mynah.ErrNotFound.
func (db *DB) settle(ctx context.Context, partID int64, fn func(tx *pipeTx, agent string, chat mynah.ChatID, thread int64) error) error {
	err := db.inPipeTx(ctx, func(tx *pipeTx) error {
		var (
			agent        string
			chat, thread int64
			settled      bool
		)
		if err := tx.QueryRow(ctx, queryPart, partID).Scan(&agent, &chat, &thread, &settled); err != nil {
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

// MarkSent records that the part was delivered as sent and, in the same transaction,
// stores sent as the agent's outgoing message (see mynah.Outbox) and records it in the
// views of the agent's crew peers in the chat (see mynah.Crews). Marking a part that is
// already sent or failed is a no-op; an unknown part is an error wrapping
// mynah.ErrNotFound.
func (db *DB) MarkSent(ctx context.Context, partID int64, sent mynah.Message) error {
	if sent.ID == 0 {
		return fmt.Errorf("postgres: mark part %d sent: message has no id", partID)
	}
	if sent.Agent != "" && sent.Chat.ID != 0 && sent.Edited.IsZero() {
		// The sender says whose the part is and where it went (the lane does): the row
		// lock and the writes go together, the guess checked against the locked row.
		err := db.inPipeTx(ctx, func(tx *pipeTx) error {
			m := sent
			m.Outgoing, m.Time = true, storecodec.OrNow(m.Time, db.now)
			return db.storeSent(ctx, tx, m.Agent, partID, &m, true)
		})
		switch {
		case err == nil, errors.Is(err, errSettled):
			return nil
		case !errors.Is(err, errGuess):
			return fail(ctx, err, "mark part %d sent", partID)
		}
	}
	err := db.settle(ctx, partID, func(tx *pipeTx, agent string, chat mynah.ChatID, thread int64) error {
		now := db.now()
		m := sent
		m.Agent, m.Outgoing, m.Time = agent, true, storecodec.OrNow(m.Time, db.now)
		if m.Chat.ID == 0 {
			m.Chat.ID = chat
		}
		if m.ThreadID == 0 {
			m.ThreadID = thread
		}
		c := m.Chat
		if !m.Edited.IsZero() { // the part edited a message the agent sent before
			if _, err := tx.Exec(ctx, markSent, now.UnixMilli(), int64(sent.ID), partID); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, ensureChat, agent, int64(c.ID), string(c.Type), c.Title, c.Username,
				c.IsForum, now.UnixMilli()); err != nil {
				return err
			}
			if err := db.editMessage(ctx, tx, agent, c.ID, &m); err != nil {
				return err
			}
			return db.shareSent(ctx, tx, agent, &m) // crew.go: the other members of its crews see it
		}
		return db.storeSent(ctx, tx, agent, partID, &m, false)
	})
	if err != nil {
		return fail(ctx, err, "mark part %d sent", partID)
	}
	return nil
}

// errGuess stops MarkSent's transaction when the part is not the sent message's agent's,
// or has a thread the message lacks; it never escapes.
var errGuess = errors.New("the part is not where the message says")

// storeSent marks the part sent, stores m, the message it was delivered as, with its
// chat, and records it in the views of agent's crew peers in the chat, in tx: the mark,
// the message and the peers in one round trip, the index entry (and media queue) and
// the commit in a second; the shares, rare, after. With lock, the part's row is locked
// first in the same round trip (as settle does), and the transaction stops with
// errSettled when the part is settled already, with errGuess when it is not agent's or
// m has no thread and the part has one (then the message goes to the part's thread).
func (db *DB) storeSent(ctx context.Context, tx *pipeTx, agent string, partID int64, m *mynah.Message, lock bool) error {
	args, err := db.messageArgs(agent, m.Chat.ID, m)
	if err != nil {
		return err
	}
	c := m.Chat
	args = append(args, string(c.Type), c.Title, c.Username, c.IsForum)
	b := &pgx.Batch{}
	if lock {
		b.Queue(queryPart, partID)
	}
	b.Queue(markSent, db.now().UnixMilli(), int64(m.ID), partID)
	b.Queue(insertMessageInChat, args...)
	b.Queue(queryCrewPeers, agent, int64(c.ID))
	var (
		seq    int64
		prev   sql.NullString
		stored = true
		peers  []string
	)
	res := tx.SendBatch(ctx, b)
	err = func() error {
		if lock {
			var (
				owner   string
				thread  int64
				settled bool
			)
			err := res.QueryRow().Scan(&owner, nil, &thread, &settled)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				return errGuess // settle tells an unknown part
			case err != nil:
				return err
			case settled:
				return errSettled
			case owner != agent || m.ThreadID == 0 && thread != 0:
				return errGuess
			}
		}
		if _, err := res.Exec(); err != nil {
			return err
		}
		err := res.QueryRow().Scan(&seq, &prev)
		if errors.Is(err, pgx.ErrNoRows) { // stored already
			stored = false
		} else if err != nil {
			return err
		}
		rows, err := res.Query()
		if err != nil {
			return err
		}
		peers, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	}()
	if err := errors.Join(err, res.Close()); err != nil {
		return err
	}
	b = &pgx.Batch{}
	if stored {
		if args, ok := entryArgs(agent, c.ID, m, seq, prev); ok {
			b.Queue(upsertSearchDocs, args...)
		}
		if waitsForDescription(m) {
			b.Queue(insertMediaWork, agent, int64(c.ID), int64(m.ID), db.now().UnixMilli())
		}
	}
	if len(peers) == 0 {
		tx.commitNext()
	}
	if _, err := execBatch(ctx, tx, b, "", nil); err != nil {
		return err
	}
	if len(peers) == 0 {
		return nil
	}
	v := *m
	v.Outgoing = false
	return db.shareTx(ctx, tx, peers, &v, false)
}

// MarkFailed records that the part will never be delivered, with reason for operators;
// it leaves PendingParts. Marking a part already sent or failed is a no-op; an unknown
// part is an error wrapping mynah.ErrNotFound.
func (db *DB) MarkFailed(ctx context.Context, partID int64, reason string) error {
	err := db.settle(ctx, partID, func(tx *pipeTx, _ string, _ mynah.ChatID, _ int64) error {
		tx.commitNext()
		_, err := tx.Exec(ctx, markFailed, db.now().UnixMilli(), reason, partID)
		return err
	})
	if err != nil {
		return fail(ctx, err, "mark part %d failed", partID)
	}
	return nil
}

// MarkDone records a part that sends no message as carried out and, in the same
// transaction, queues then (the reminder a schedule part sets) when it is non-nil. A part
// already settled is left as it is, and then is not queued again.
func (db *DB) MarkDone(ctx context.Context, partID int64, then *mynah.Turn) error {
	err := db.settle(ctx, partID, func(tx *pipeTx, agent string, chat mynah.ChatID, thread int64) error {
		if then == nil {
			tx.commitNext()
		}
		if _, err := tx.Exec(ctx, markDone, db.now().UnixMilli(), partID); err != nil {
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
	if err := db.pool.QueryRow(ctx, retryPart, reason, partID).Scan(&n); err != nil {
		return 0, fail(ctx, err, "count a failed attempt of part %d", partID)
	}
	return n, nil
}
