package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mynah-ai/mynah"
)

const (
	// queryPendingTurns reads the turns_pending partial index, which holds undone rows only.
	queryPendingTurns = `SELECT id, chat_id, thread_id, target, static, reply_to, created
		FROM turns WHERE agent = ? AND done_at IS NULL ORDER BY id LIMIT ?`
	queryTurn  = `SELECT agent, chat_id, thread_id, done_at FROM turns WHERE id = ?`
	finishTurn = `UPDATE turns SET done_at = ? WHERE id = ?`
	insertPart = `INSERT INTO outbox (agent, chat_id, thread_id, key, html, plain, reply_to, turn_id, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (agent, key) DO NOTHING`
)

// PendingTurns returns up to limit unfinished turns of agent, oldest (lowest id) first.
// A limit <= 0 returns none.
func (db *DB) PendingTurns(ctx context.Context, agent string, limit int) ([]mynah.Turn, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.read.QueryContext(ctx, queryPendingTurns, agent, limit)
	if err != nil {
		return nil, fail(ctx, err, "pending turns of %s", agent)
	}
	defer rows.Close()
	var out []mynah.Turn
	for rows.Next() {
		t := mynah.Turn{Agent: agent}
		var chat, target, replyTo int64
		var created sql.NullInt64
		if err := rows.Scan(&t.ID, &chat, &t.ThreadID, &target, &t.Static, &replyTo, &created); err != nil {
			return nil, fail(ctx, err, "pending turns of %s", agent)
		}
		t.Chat, t.Target, t.ReplyTo, t.Created = mynah.ChatID(chat), mynah.MessageID(target), mynah.MessageID(replyTo), fromMillis(created)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "pending turns of %s", agent)
	}
	return out, nil
}

// FinishTurn marks the turn done and enqueues parts for delivery in one transaction.
// Parts belong to the turn's agent (a part naming another agent is an error); a part with
// Chat 0 goes to the turn's chat and thread; Created 0 means now. Every part needs a Key,
// unique per agent: a part whose key is already enqueued is skipped. Finishing a finished
// turn is a no-op that enqueues nothing; an unknown turn is an error wrapping
// mynah.ErrNotFound.
func (db *DB) FinishTurn(ctx context.Context, turnID int64, parts []mynah.OutPart) error {
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var (
			agent        string
			chat, thread int64
			done         sql.NullInt64
		)
		if err := tx.QueryRowContext(ctx, queryTurn, turnID).Scan(&agent, &chat, &thread, &done); err != nil {
			return err
		}
		if done.Valid {
			return nil
		}
		now := db.now()
		if _, err := tx.ExecContext(ctx, finishTurn, now.UnixMilli(), turnID); err != nil {
			return err
		}
		for i, p := range parts {
			if p.Agent != "" && p.Agent != agent {
				return fmt.Errorf("part %d is for agent %q, the turn for %q", i, p.Agent, agent)
			}
			if p.Key == "" {
				return fmt.Errorf("part %d has no key", i)
			}
			pc, pt := int64(p.Chat), p.ThreadID
			if pc == 0 {
				pc, pt = chat, thread
			}
			if _, err := tx.ExecContext(ctx, insertPart, agent, pc, pt, p.Key, p.HTML, p.Plain, int64(p.ReplyTo),
				turnID, orNow(p.Created, db.now).UnixMilli()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fail(ctx, err, "finish turn %d", turnID)
	}
	return nil
}
