package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

const (
	queryChat    = `SELECT type, title, username, is_forum FROM chats WHERE agent = ? AND chat_id = ?`
	querySession = `SELECT start_id, started FROM sessions WHERE agent = ? AND chat_id = ? AND thread_id = ?
		ORDER BY id DESC LIMIT 1`
	queryBlocked = `SELECT blocked FROM chat_state WHERE agent = ? AND chat_id = ?`
	upsertState  = `INSERT INTO chat_state (agent, chat_id, blocked, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (agent, chat_id) DO UPDATE SET blocked = excluded.blocked, updated_at = excluded.updated_at`
	insertUsage = `INSERT INTO usage (agent, chat_id, model, input_tokens, output_tokens, cached_tokens, time)
		VALUES (?, ?, ?, ?, ?, ?, ?)`
)

// Chat returns the chat as agent last saw it, or an error wrapping mynah.ErrNotFound.
func (db *DB) Chat(ctx context.Context, agent string, id mynah.ChatID) (mynah.Chat, error) {
	c := mynah.Chat{ID: id}
	var typ string
	err := db.stmts.chat.QueryRowContext(brief(ctx), agent, int64(id)).Scan(&typ, &c.Title, &c.Username, &c.IsForum)
	if err != nil {
		return mynah.Chat{}, fail(ctx, err, "chat %d of %s", id, agent)
	}
	c.Type = mynah.ChatType(typ)
	return c, nil
}

// Session returns agent's current session in chat's topic thread: the latest reset there,
// or Start 0 (and a zero Started) when the topic was never reset or is unknown.
func (db *DB) Session(ctx context.Context, agent string, chat mynah.ChatID, thread int64) (mynah.Session, error) {
	s := mynah.Session{Agent: agent, Chat: chat, Thread: thread}
	var start int64
	var started sql.NullInt64
	err := db.stmts.session.QueryRowContext(brief(ctx), agent, int64(chat), thread).Scan(&start, &started)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return s, nil
	case err != nil:
		return mynah.Session{}, fail(ctx, err, "session of chat %d topic %d of %s", chat, thread, agent)
	}
	s.Start, s.Started = mynah.MessageID(start), storecodec.FromMillis(started)
	return s, nil
}

// SetBlocked records whether the chat's user blocked agent's bot. The chat need not be
// known.
func (db *DB) SetBlocked(ctx context.Context, agent string, id mynah.ChatID, blocked bool) error {
	if _, err := db.stmts.upsertState.ExecContext(ctx, agent, int64(id), boolInt(blocked), db.now().UnixMilli()); err != nil {
		return fail(ctx, err, "set chat %d of %s blocked=%t", id, agent, blocked)
	}
	return nil
}

// Blocked reports whether the chat's user blocked agent's bot; false when never set.
func (db *DB) Blocked(ctx context.Context, agent string, id mynah.ChatID) (bool, error) {
	var blocked bool
	err := db.stmts.blocked.QueryRowContext(ctx, agent, int64(id)).Scan(&blocked)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fail(ctx, err, "blocked state of chat %d of %s", id, agent)
	}
	return blocked, nil
}

// RecordUsage appends one usage row; a zero Time means now. Agent is required.
func (db *DB) RecordUsage(ctx context.Context, u mynah.Usage) error {
	if u.Agent == "" {
		return fmt.Errorf("sqlite: record usage: no agent")
	}
	_, err := db.stmts.insertUsage.ExecContext(ctx, u.Agent, int64(u.Chat), u.Model, u.InputTokens, u.OutputTokens,
		u.CachedTokens, storecodec.OrNow(u.Time, db.now).UnixMilli())
	if err != nil {
		return fail(ctx, err, "record usage of %s", u.Agent)
	}
	return nil
}
