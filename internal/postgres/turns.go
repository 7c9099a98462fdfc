package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

const (
	turnColumns = `id, chat_id, thread_id, target, static, reply_to, created, not_before,
		buttons, edit_id, due, preview_id`
	// queryPendingTurns reads the turns_pending partial index, which holds undone rows only.
	queryPendingTurns = `SELECT ` + turnColumns + ` FROM turns
		WHERE agent = $1 AND done_at IS NULL AND due <= $2 ORDER BY id LIMIT $3`
	// queryTurnClaim locks the turn's row, so that two instances finishing one turn
	// serialize, and reads the claim of its chat: its owner and when it was last renewed,
	// NULL when nobody claimed it.
	queryTurnClaim = `SELECT t.agent, t.chat_id, t.thread_id, t.done_at, c.owner, c.claimed_at FROM turns t
		LEFT JOIN chat_claims c ON c.agent = t.agent AND c.chat_id = t.chat_id
		WHERE t.id = $1 FOR UPDATE OF t`
	// queryTurnRenew is queryTurnClaim that also renews the claim of the turn's chat when
	// this instance ($2) holds it, as Hold does, and says whether it did. The claim read
	// is as it was before the renewal.
	queryTurnRenew = `WITH r AS (UPDATE chat_claims c SET claimed_at = now() FROM turns t
			WHERE t.id = $1 AND c.agent = t.agent AND c.chat_id = t.chat_id AND c.owner = $2 RETURNING 1)
		SELECT t.agent, t.chat_id, t.thread_id, t.done_at, c.owner, c.claimed_at, EXISTS (SELECT 1 FROM r) FROM turns t
		LEFT JOIN chat_claims c ON c.agent = t.agent AND c.chat_id = t.chat_id
		WHERE t.id = $1 FOR UPDATE OF t`
	finishTurn = `UPDATE turns SET done_at = $1 WHERE id = $2`
	// finishPrompt is finishTurn ($10, $2) and upsertPrompt in one statement.
	finishPrompt = `WITH f AS (UPDATE turns SET done_at = $10 WHERE id = $2) ` + upsertPrompt
	insertPart   = `INSERT INTO outbox (agent, chat_id, thread_id, key, html, plain, reply_to, turn_id, created, kind, task)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (agent, key) DO NOTHING RETURNING id`
	queryDueAt = `SELECT min(due) FROM turns WHERE agent = $1 AND done_at IS NULL AND due > $2`
	setPreview = `UPDATE turns SET preview_id = $1 WHERE id = $2`
)

// PendingTurns returns up to limit unfinished turns of agent that are due at now, oldest
// (lowest id) first. A limit <= 0 returns none. With Claims on (several instances), only
// the turns of chats this instance holds or takes over are returned; see claims.go.
func (db *DB) PendingTurns(ctx context.Context, agent string, now time.Time, limit int) ([]mynah.Turn, error) {
	if limit <= 0 {
		return nil, nil
	}
	var (
		rows pgx.Rows
		err  error
	)
	if db.claims != nil {
		rows, err = db.claimedTurns(ctx, agent, now, limit)
	} else {
		rows, err = db.pool.Query(ctx, queryPendingTurns, agent, now.UnixMilli(), limit)
	}
	if err != nil {
		return nil, fail(ctx, err, "pending turns of %s", agent)
	}
	out, err := scanTurns(agent, rows)
	if err != nil {
		return nil, fail(ctx, err, "pending turns of %s", agent)
	}
	return out, nil
}

// scanTurns reads and closes rows of turnColumns.
func scanTurns(agent string, rows pgx.Rows) ([]mynah.Turn, error) {
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
			return nil, err
		}
		t.Chat, t.Target, t.ReplyTo, t.Created = mynah.ChatID(chat), mynah.MessageID(target), mynah.MessageID(replyTo), storecodec.FromMillis(created)
		t.NotBefore, t.Due, t.Edit = storecodec.FromMillis(sql.NullInt64{Int64: notBefore, Valid: true}), storecodec.FromMillis(sql.NullInt64{Int64: due, Valid: true}), mynah.MessageID(edit)
		t.Preview = mynah.MessageID(preview)
		var err error
		if t.Buttons, err = storecodec.DecodeButtons(buttons); err != nil {
			return nil, fmt.Errorf("turn %d: buttons: %w", t.ID, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// FinishTurn marks the turn done and enqueues parts for delivery in one transaction, and
// returns the given parts as stored that are still pending, each key once (see
// mynah.Turns). The turn's row is locked first, so two instances finishing the same turn
// (one whose claim expired) serialize: the second finds it done and enqueues nothing new.
// With Claims on, an instance that lost the chat's claim to another cannot finish the
// turn: the new holder runs it, and the stale answer is never delivered.
func (db *DB) FinishTurn(ctx context.Context, turnID int64, parts []mynah.OutPart) ([]mynah.OutPart, error) {
	return db.FinishTurnWith(ctx, turnID, mynah.TurnOutcome{Parts: parts})
}

// FinishTurnWith finishes the turn as FinishTurn does with o.Parts and, in the same
// transaction, records o.Usage (as RecordUsage) and o.Prompt (as RecordPrompt, its Turn
// set to turnID). On a finished turn nothing is enqueued or recorded again, and the
// stored parts are returned as FinishTurn returns them.
func (db *DB) FinishTurnWith(ctx context.Context, turnID int64, o mynah.TurnOutcome) ([]mynah.OutPart, error) {
	parts := o.Parts
	var (
		out  []mynah.OutPart
		held []int64 // parts sendable without a Hold (see holdUntil)
	)
	start := time.Now() // before the transaction, and the claim's renewal in it, began
	err := db.inPipeTx(ctx, func(tx *pipeTx) error {
		out, held = nil, nil
		var (
			agent        string
			chat, thread int64
			done         sql.NullInt64
			claim        heldBy
			renewed      bool // this instance's claim of the chat, renewed
		)
		var err error
		if db.claims != nil {
			err = tx.QueryRow(ctx, queryTurnRenew, turnID, db.claims.owner).Scan(&agent, &chat, &thread, &done, &claim.owner, &claim.at, &renewed)
		} else {
			err = tx.QueryRow(ctx, queryTurnClaim, turnID).Scan(&agent, &chat, &thread, &done, &claim.owner, &claim.at)
		}
		if err != nil {
			return err
		}
		if err := checkParts(agent, parts); err != nil {
			return err
		}
		// A part whose key came before is the same part (the first is kept).
		var unique []mynah.OutPart
		for _, p := range parts {
			if !slices.ContainsFunc(unique, func(u mynah.OutPart) bool { return u.Key == p.Key }) {
				unique = append(unique, p)
			}
		}
		if done.Valid {
			for _, p := range unique {
				stored, pending, err := db.storedPart(ctx, tx, agent, p.Key)
				if err != nil {
					return err
				}
				if pending {
					out = append(out, stored)
				}
			}
			return nil
		}
		if err := db.checkClaim(ctx, claim); err != nil {
			return err
		}
		tx.commitNext() // the batch ends the transaction
		out, held, err = db.finishBatch(ctx, tx, turnID, agent, mynah.ChatID(chat), thread, o, unique, renewed)
		return err
	})
	if err != nil {
		return nil, fail(ctx, err, "finish turn %d", turnID)
	}
	db.claims.holdUntil(held, start)
	return out, nil
}

// finishBatch marks the turn done, records o's usage and prompt and enqueues parts (keys
// unique) in tx, sending the statements together: one round trip, not one each. It
// returns the parts still pending, as enqueued or, for a key enqueued before, as stored
// (read after the batch, which may have committed tx: a part read later is as pending as
// it is then). When renewed (this instance's claim of the chat was renewed in tx, see
// queryTurnRenew), it also returns the ids of the parts enqueued in the chat, whose first
// send the renewal covers (see holdUntil).
func (db *DB) finishBatch(ctx context.Context, tx pgx.Tx, turnID int64, agent string, chat mynah.ChatID, thread int64, o mynah.TurnOutcome, parts []mynah.OutPart, renewed bool) ([]mynah.OutPart, []int64, error) {
	b := &pgx.Batch{}
	done := db.now().UnixMilli()
	if rec := o.Prompt; rec != nil {
		u := rec.Usage
		b.Queue(finishPrompt, agent, turnID, int64(rec.Chat), rec.Model,
			string(rec.Composition), u.InputTokens, u.OutputTokens, u.CachedTokens, storecodec.OrNow(rec.Time, db.now).UnixMilli(), done)
	} else {
		b.Queue(finishTurn, done, turnID)
	}
	for _, u := range o.Usage {
		b.Queue(insertUsage, agent, int64(u.Chat), u.Model, u.InputTokens, u.OutputTokens,
			u.CachedTokens, storecodec.OrNow(u.Time, db.now).UnixMilli())
	}
	queued := make([]mynah.OutPart, len(parts))
	for i, p := range parts {
		if p.Chat == 0 {
			p.Chat, p.ThreadID = chat, thread
		}
		created := storecodec.OrNow(p.Created, db.now)
		task, err := storecodec.EncodeTask(p)
		if err != nil {
			return nil, nil, err
		}
		kind := p.Kind
		if kind == "" {
			kind = mynah.TaskSend
		}
		b.Queue(insertPart, agent, int64(p.Chat), p.ThreadID, p.Key, p.HTML, p.Plain,
			int64(p.ReplyTo), turnID, created.UnixMilli(), string(kind), task)
		p.Agent, p.Created, p.TurnID = agent, storecodec.FromMillis(sql.NullInt64{Int64: created.UnixMilli(), Valid: true}), turnID
		queued[i] = p
	}
	res := tx.SendBatch(ctx, b)
	err := func() error {
		for range b.Len() - len(parts) {
			if _, err := res.Exec(); err != nil {
				return err
			}
		}
		for i := range queued {
			err := res.QueryRow().Scan(&queued[i].ID)
			if errors.Is(err, pgx.ErrNoRows) { // the key was enqueued before
				queued[i].ID = 0
				continue
			}
			if err != nil {
				return err
			}
		}
		return nil
	}()
	if err := errors.Join(err, res.Close()); err != nil {
		return nil, nil, err
	}
	var (
		out  []mynah.OutPart
		held []int64
	)
	for _, p := range queued {
		if p.ID == 0 {
			stored, pending, err := db.storedPart(ctx, tx, agent, p.Key)
			if err != nil {
				return nil, nil, err
			}
			if !pending {
				continue
			}
			p = stored
		} else if renewed && p.Chat == chat {
			held = append(held, p.ID)
		}
		out = append(out, p)
	}
	return out, held, nil
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

// NextDue returns when agent's earliest turn that is not due at now falls due; zero when
// none waits.
func (db *DB) NextDue(ctx context.Context, agent string, now time.Time) (time.Time, error) {
	var due sql.NullInt64
	if err := db.pool.QueryRow(ctx, queryDueAt, agent, now.UnixMilli()).Scan(&due); err != nil {
		return time.Time{}, fail(ctx, err, "next due turn of %s", agent)
	}
	return storecodec.FromMillis(due), nil
}

// insertTurnTx queues t for agent inside tx and returns its id; the other instances are
// notified when tx commits.
func (db *DB) insertTurnTx(ctx context.Context, tx pgx.Tx, agent string, t mynah.Turn) (int64, error) {
	q, args, err := db.insertTurnArgs(agent, t, true)
	if err != nil {
		return 0, err
	}
	return execBatch(ctx, tx, &pgx.Batch{}, q, args)
}

// insertTurnArgs is the statement that queues t for agent, and its arguments: with several
// instances and notify, the statement also notifies the others in the same round trip.
func (db *DB) insertTurnArgs(agent string, t mynah.Turn, notify bool) (string, []any, error) {
	buttons, err := storecodec.ButtonsColumn(t.Buttons)
	if err != nil {
		return "", nil, err
	}
	q := insertTurn
	if db.claims != nil && notify {
		q = insertTurnNotify
	}
	return q, []any{agent, int64(t.Chat), t.ThreadID, int64(t.Target), t.Static,
		int64(t.ReplyTo), storecodec.OrNow(t.Created, db.now).UnixMilli(), notBeforeMillis(t.NotBefore),
		buttons, int64(t.Edit), notBeforeMillis(t.Due)}, nil
}

// SetPreview records msg as the message previewing the turn's answer.
func (db *DB) SetPreview(ctx context.Context, turnID int64, msg mynah.MessageID) error {
	tag, err := db.pool.Exec(ctx, setPreview, int64(msg), turnID)
	if err == nil && tag.RowsAffected() == 0 {
		err = fmt.Errorf("turn %d: %w", turnID, mynah.ErrNotFound)
	}
	if err != nil {
		return fail(ctx, err, "set the preview of turn %d", turnID)
	}
	return nil
}
