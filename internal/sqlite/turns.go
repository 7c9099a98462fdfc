package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

const (
	// queryPendingTurns reads the turns_pending partial index, which holds undone rows only.
	queryPendingTurns = `SELECT id, chat_id, thread_id, target, static, reply_to, created, not_before,
		buttons, edit_id, due, preview_id FROM turns WHERE agent = ? AND done_at IS NULL AND due <= ? ORDER BY id LIMIT +?`
	queryTurn  = `SELECT agent, chat_id, thread_id, done_at FROM turns WHERE id = ?`
	finishTurn = `UPDATE turns SET done_at = ? WHERE id = ?`
	insertPart = `INSERT INTO outbox (agent, chat_id, thread_id, key, html, plain, reply_to, turn_id, created, kind, task)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (agent, key) DO NOTHING`
)

// PendingTurns returns up to limit unfinished turns of agent that are due at now, oldest
// (lowest id) first. A limit <= 0 returns none.
func (db *DB) PendingTurns(ctx context.Context, agent string, now time.Time, limit int) ([]mynah.Turn, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.stmts.pendingTurns.QueryContext(ctx, agent, now.UnixMilli(), limit)
	if err != nil {
		return nil, fail(ctx, err, "pending turns of %s", agent)
	}
	defer rows.Close()
	var out []mynah.Turn
	for rows.Next() {
		t := mynah.Turn{Agent: agent}
		var chat, target, replyTo int64
		var created sql.NullInt64
		var notBefore, due, edit, preview int64
		var buttons sql.NullString
		if err := rows.Scan(&t.ID, &chat, &t.ThreadID, &target, &t.Static, &replyTo, &created, &notBefore,
			&buttons, &edit, &due, &preview); err != nil {
			return nil, fail(ctx, err, "pending turns of %s", agent)
		}
		t.Chat, t.Target, t.ReplyTo, t.Created = mynah.ChatID(chat), mynah.MessageID(target), mynah.MessageID(replyTo), storecodec.FromMillis(created)
		t.NotBefore, t.Due, t.Edit = storecodec.FromMillis(sql.NullInt64{Int64: notBefore, Valid: true}), storecodec.FromMillis(sql.NullInt64{Int64: due, Valid: true}), mynah.MessageID(edit)
		t.Preview = mynah.MessageID(preview)
		if t.Buttons, err = storecodec.DecodeButtons(buttons); err != nil {
			return nil, fail(ctx, fmt.Errorf("turn %d: buttons: %w", t.ID, err), "pending turns of %s", agent)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "pending turns of %s", agent)
	}
	return out, nil
}

// FinishTurn marks the turn done and enqueues parts for delivery in one transaction, and
// returns the parts as stored that are still pending (neither sent nor failed), in the
// order given, each key once, with ID set: what the caller should deliver now.
//
// Parts belong to the turn's agent (a part naming another agent is an error); a part with
// Chat 0 goes to the turn's chat and thread; Created 0 means now. Every part needs a Key,
// unique per agent: a part whose key is already enqueued is not enqueued again, and the
// stored part is returned in its place. Finishing a finished turn enqueues nothing and
// returns the stored, pending parts of the given keys, so finishing twice returns the same
// parts. An invalid part is an error and changes nothing; an unknown turn is an error
// wrapping mynah.ErrNotFound.
func (db *DB) FinishTurn(ctx context.Context, turnID int64, parts []mynah.OutPart) ([]mynah.OutPart, error) {
	return db.FinishTurnWith(ctx, turnID, mynah.TurnOutcome{Parts: parts})
}

// FinishTurnWith finishes the turn as FinishTurn does with o.Parts and, in the same
// transaction, records o.Usage (as RecordUsage) and o.Prompt (as RecordPrompt, its Turn
// set to turnID). On a finished turn nothing is enqueued or recorded again, and the
// stored parts are returned as FinishTurn returns them.
func (db *DB) FinishTurnWith(ctx context.Context, turnID int64, o mynah.TurnOutcome) ([]mynah.OutPart, error) {
	parts := o.Parts
	var out []mynah.OutPart
	err := db.inTx(ctx, func(tx *txn) error {
		out = out[:0]
		var (
			agent        string
			chat, thread int64
			done         sql.NullInt64
		)
		if err := tx.queryRow(ctx, db.stmts.queryTurn, turnID).Scan(&agent, &chat, &thread, &done); err != nil {
			return err
		}
		if err := checkParts(agent, parts); err != nil {
			return err
		}
		if !done.Valid {
			if _, err := tx.exec(ctx, db.stmts.finishTurn, db.now().UnixMilli(), turnID); err != nil {
				return err
			}
			if err := db.recordOutcome(ctx, tx, turnID, agent, o); err != nil {
				return err
			}
		}
		for i, p := range parts {
			if i > 0 && slices.ContainsFunc(parts[:i], func(o mynah.OutPart) bool { return o.Key == p.Key }) {
				continue
			}
			var (
				stored  mynah.OutPart
				pending bool
				err     error
			)
			if done.Valid {
				stored, pending, err = db.storedPart(ctx, tx, agent, p.Key)
			} else {
				stored, pending, err = db.enqueuePart(ctx, tx, turnID, agent, mynah.ChatID(chat), thread, p)
			}
			if err != nil {
				return err
			}
			if pending {
				out = append(out, stored)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fail(ctx, err, "finish turn %d", turnID)
	}
	return out, nil
}

// recordOutcome records the usage and the prompt record of a turn being finished.
func (db *DB) recordOutcome(ctx context.Context, tx *txn, turnID int64, agent string, o mynah.TurnOutcome) error {
	for _, u := range o.Usage {
		if _, err := tx.exec(ctx, db.stmts.insertUsage, agent, int64(u.Chat), u.Model, u.InputTokens, u.OutputTokens,
			u.CachedTokens, storecodec.OrNow(u.Time, db.now).UnixMilli()); err != nil {
			return err
		}
	}
	if rec := o.Prompt; rec != nil {
		u := rec.Usage
		if _, err := tx.exec(ctx, db.stmts.upsertPrompt, agent, turnID, int64(rec.Chat), rec.Model,
			string(rec.Composition), u.InputTokens, u.OutputTokens, u.CachedTokens, storecodec.OrNow(rec.Time, db.now).UnixMilli()); err != nil {
			return err
		}
	}
	return nil
}

// checkParts reports the first part that cannot be enqueued for a turn of agent.
func checkParts(agent string, parts []mynah.OutPart) error {
	for i, p := range parts {
		if p.Agent != "" && p.Agent != agent {
			return fmt.Errorf("part %d is for agent %q, the turn for %q", i, p.Agent, agent)
		}
		if p.Key == "" {
			return fmt.Errorf("part %d has no key", i)
		}
	}
	return nil
}

// enqueuePart inserts p for the turn (of agent, in chat and thread) unless its key is
// enqueued already, and returns the part as stored and whether it is still pending.
func (db *DB) enqueuePart(ctx context.Context, tx *txn, turnID int64, agent string, chat mynah.ChatID, thread int64, p mynah.OutPart) (mynah.OutPart, bool, error) {
	if p.Chat == 0 {
		p.Chat, p.ThreadID = chat, thread
	}
	created := storecodec.OrNow(p.Created, db.now).UnixMilli()
	task, err := storecodec.EncodeTask(p)
	if err != nil {
		return mynah.OutPart{}, false, err
	}
	kind := p.Kind
	if kind == "" {
		kind = mynah.TaskSend
	}
	res, err := tx.exec(ctx, db.stmts.insertPart, agent, int64(p.Chat), p.ThreadID, p.Key, p.HTML, p.Plain,
		int64(p.ReplyTo), turnID, created, string(kind), task)
	if err != nil {
		return mynah.OutPart{}, false, err
	}
	// RowsAffected is 0 when ON CONFLICT skipped the insert; LastInsertId is then stale.
	n, err := res.RowsAffected()
	if err != nil {
		return mynah.OutPart{}, false, err
	}
	if n == 0 {
		return db.storedPart(ctx, tx, agent, p.Key)
	}
	if p.ID, err = res.LastInsertId(); err != nil {
		return mynah.OutPart{}, false, err
	}
	p.Agent, p.Created, p.TurnID = agent, storecodec.FromMillis(sql.NullInt64{Int64: created, Valid: true}), turnID
	return p, true, nil
}
