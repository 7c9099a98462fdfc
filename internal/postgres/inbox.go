package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

const (
	// acceptUpdate takes the dedupe key of an update and, when it was free, makes the
	// transaction's commit durable (as durable does) in the same round trip; no row when the
	// key was taken.
	acceptUpdate = `WITH taken AS (INSERT INTO updates (agent, update_id, accepted_at) VALUES ($1, $2, $3)
			ON CONFLICT (agent, update_id) DO NOTHING RETURNING 1)
		SELECT set_config('synchronous_commit', 'on', true) FROM taken`
	upsertChat = `INSERT INTO chats (agent, chat_id, type, title, username, is_forum, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (agent, chat_id) DO UPDATE SET type = excluded.type, title = excluded.title,
			username = excluded.username, is_forum = excluded.is_forum, updated_at = excluded.updated_at`
	upsertUser = `INSERT INTO users (agent, user_id, first_name, last_name, username, is_bot, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (agent, user_id) DO UPDATE SET first_name = excluded.first_name,
			last_name = excluded.last_name, username = excluded.username, is_bot = excluded.is_bot,
			updated_at = excluded.updated_at`
	insertSession = `INSERT INTO sessions (agent, chat_id, thread_id, start_id, started) VALUES ($1, $2, $3, $4, $5)`
	insertTurn    = `INSERT INTO turns (agent, chat_id, thread_id, target, static, reply_to, created, not_before,
		buttons, edit_id, due) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`
	// insertTurnNotify is insertTurn that also tells the other instances, when the
	// transaction commits, that agent has a new turn; the payload is the schema and the
	// agent (see workChannel). Binds as insertTurn; returns the id and pg_notify's void.
	insertTurnNotify = `WITH t AS (` + insertTurn + `)
		SELECT id, pg_notify('` + workChannel + `', current_schema() || ' ' || $1) FROM t`
)

// Accept records updateID as handled for agent and applies in, in one transaction, with
// the semantics of the SQLite store (see mynah.Inbox): the dedupe key first, then the
// chat and users (latest names win), the message (kept when stored already, and then no
// reset and no turn), an edit, a reset and a turn (*in.Turn then set as queued, its ID
// too, unless another instance serves the chat: see claimQueued). Two instances accepting the same
// update race on the updates primary key: the second waits for the first to commit and
// then finds the key taken, so exactly one applies it.
func (db *DB) Accept(ctx context.Context, agent string, updateID int64, in mynah.Intake) (bool, error) {
	chat := in.Chat
	if chat.ID == 0 && in.Message != nil {
		chat = in.Message.Chat
	}
	if err := validateIntake(agent, chat.ID, in); err != nil {
		return false, fmt.Errorf("postgres: accept update %d of %s: %w", updateID, agent, err)
	}
	var (
		accepted bool
		queued   mynah.Turn // in.Turn as queued
	)
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		accepted, queued = false, mynah.Turn{}
		now := db.now()
		err := tx.QueryRow(ctx, acceptUpdate, agent, updateID, now.UnixMilli()).Scan(nil)
		if errors.Is(err, pgx.ErrNoRows) { // handled before
			return nil
		}
		if err != nil {
			return err
		}
		accepted = true
		if chat.ID != 0 {
			if _, err := tx.Exec(ctx, upsertChat, agent, int64(chat.ID), string(chat.Type), chat.Title,
				chat.Username, chat.IsForum, now.UnixMilli()); err != nil {
				return err
			}
		}
		for _, u := range in.Users {
			if u.ID == 0 {
				continue
			}
			if _, err := tx.Exec(ctx, upsertUser, agent, int64(u.ID), u.FirstName, u.LastName, u.Username,
				u.IsBot, now.UnixMilli()); err != nil {
				return err
			}
		}
		fresh := true // the message, if any, is new: its reset and turn apply
		if m := in.Message; m != nil {
			if in.Edit {
				err = db.editMessage(ctx, tx, agent, chat.ID, m)
			} else {
				fresh, err = db.storeMessage(ctx, tx, agent, chat.ID, m)
			}
			if err != nil {
				return err
			}
		}
		if !fresh {
			return nil
		}
		if in.Reset {
			started := storecodec.OrNow(in.Message.Time, db.now)
			if _, err := tx.Exec(ctx, insertSession, agent, int64(chat.ID), in.Message.ThreadID,
				int64(in.Message.ID), started.UnixMilli()); err != nil {
				return err
			}
		}
		if t := in.Turn; t != nil {
			tc := t.Chat
			if tc == 0 {
				tc = chat.ID
			}
			if tc != chat.ID {
				if _, err := tx.Exec(ctx, ensureChat, agent, int64(tc), "", "", "", false, now.UnixMilli()); err != nil {
					return err
				}
			}
			queued = *t
			queued.Agent, queued.Chat, queued.Created = agent, tc, storecodec.OrNow(t.Created, db.now)
			if queued.ID, err = db.insertTurnTx(ctx, tx, agent, queued); err != nil {
				return err
			}
			// Another instance serving the chat runs the turn, not this one: the caller
			// gets no ID and reads the queue, which holds nothing of the chat for it.
			if mine, err := db.claimQueued(ctx, tx, agent, tc); err != nil || !mine {
				queued.ID = 0
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, fail(ctx, err, "accept update %d of %s", updateID, agent)
	}
	if queued.ID != 0 {
		*in.Turn = queued
	}
	return accepted, nil
}

// validateIntake reports what makes in impossible to apply for agent in chat.
func validateIntake(agent string, chat mynah.ChatID, in mynah.Intake) error {
	switch {
	case agent == "":
		return fmt.Errorf("no agent")
	case (in.Edit || in.Reset) && in.Message == nil:
		return fmt.Errorf("edit or reset without a message")
	case in.Message != nil && in.Message.Chat.ID != 0 && in.Message.Chat.ID != chat:
		return fmt.Errorf("message in chat %d, intake in chat %d", in.Message.Chat.ID, chat)
	case in.Message != nil && chat == 0:
		return fmt.Errorf("message without a chat")
	case in.Turn != nil && in.Turn.Chat == 0 && chat == 0:
		return fmt.Errorf("turn without a chat")
	}
	return nil
}

// notBeforeMillis stores a turn's earliest start; the zero time (run at once) is 0.
func notBeforeMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
