package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

const (
	insertUpdate = `INSERT INTO updates (agent, update_id, accepted_at) VALUES (?, ?, ?)
		ON CONFLICT (agent, update_id) DO NOTHING`
	upsertChat = `INSERT INTO chats (agent, chat_id, type, title, username, is_forum, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (agent, chat_id) DO UPDATE SET type = excluded.type, title = excluded.title,
			username = excluded.username, is_forum = excluded.is_forum, updated_at = excluded.updated_at`
	upsertUser = `INSERT INTO users (agent, user_id, first_name, last_name, username, is_bot, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (agent, user_id) DO UPDATE SET first_name = excluded.first_name,
			last_name = excluded.last_name, username = excluded.username, is_bot = excluded.is_bot,
			updated_at = excluded.updated_at`
	insertSession = `INSERT INTO sessions (agent, chat_id, thread_id, start_id, started) VALUES (?, ?, ?, ?, ?)`
	insertTurn    = `INSERT INTO turns (agent, chat_id, thread_id, target, static, reply_to, created, not_before,
		buttons, edit_id, due) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// Accept records updateID as handled for agent and applies in, in one transaction:
//
//   - The dedupe key (agent, updateID) is inserted first; when it exists Accept returns
//     false and changes nothing. Keys are never deleted.
//   - The chat (in.Chat, or in.Message.Chat when in.Chat.ID is 0) and in.Users are
//     upserted; the latest names win. Users with id 0 are skipped.
//   - in.Message, unless Edit, is stored; when a message with its (agent, chat, id) is
//     already stored (re-sent after a crash, or replayed under a new update id) that row
//     is kept, and Reset and Turn are dropped: a message queues at most one turn. A
//     message's Chat.ID must be 0 or the intake's chat; Agent is ignored in favour of
//     agent.
//   - With Edit, the stored message's text, entities and media are replaced and Edited is
//     set (to the message's Edited, or now); an edit of an unknown message stores it.
//   - Reset starts a new session of the message's chat and topic whose Start is
//     in.Message.ID: later prompts there include only messages after the reset command.
//     Started is the message's time, or now.
//   - in.Turn is queued for agent in the chat (Turn.Chat 0 means the intake's chat;
//     Created 0 means now). Once committed, *in.Turn is the turn as queued: its ID,
//     Agent, Chat and Created set.
//
// An invalid intake (a message, reset or turn without a chat, a reset or edit without a
// message) is an error and changes nothing.
func (db *DB) Accept(ctx context.Context, agent string, updateID int64, in mynah.Intake) (bool, error) {
	chat := in.Chat
	if chat.ID == 0 && in.Message != nil {
		chat = in.Message.Chat
	}
	if err := validateIntake(agent, chat.ID, in); err != nil {
		return false, fmt.Errorf("sqlite: accept update %d of %s: %w", updateID, agent, err)
	}
	var (
		accepted bool
		queued   mynah.Turn // in.Turn as queued
	)
	err := db.inTx(ctx, func(tx *txn) error {
		now := db.now()
		res, err := tx.exec(ctx, db.stmts.insertUpdate, agent, updateID, now.UnixMilli())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		accepted = true
		if chat.ID != 0 {
			if _, err := tx.exec(ctx, db.stmts.upsertChat, agent, int64(chat.ID), string(chat.Type), chat.Title,
				chat.Username, boolInt(chat.IsForum), now.UnixMilli()); err != nil {
				return err
			}
		}
		for _, u := range in.Users {
			if u.ID == 0 {
				continue
			}
			if _, err := tx.exec(ctx, db.stmts.upsertUser, agent, int64(u.ID), u.FirstName, u.LastName, u.Username,
				boolInt(u.IsBot), now.UnixMilli()); err != nil {
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
			if _, err := tx.exec(ctx, db.stmts.insertSession, agent, int64(chat.ID), in.Message.ThreadID,
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
				if _, err := tx.exec(ctx, db.stmts.ensureChat, agent, int64(tc), "", "", "", 0, now.UnixMilli()); err != nil {
					return err
				}
			}
			queued = *t
			queued.Agent, queued.Chat, queued.Created = agent, tc, storecodec.OrNow(t.Created, db.now)
			if queued.ID, err = db.insertTurnTx(ctx, tx, agent, queued); err != nil {
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
