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

const (
	queryChat    = `SELECT type, title, username, is_forum FROM chats WHERE agent = $1 AND chat_id = $2`
	querySession = `SELECT start_id, started FROM sessions WHERE agent = $1 AND chat_id = $2 AND thread_id = $3
		ORDER BY id DESC LIMIT 1`
	queryBlocked = `SELECT blocked FROM chat_state WHERE agent = $1 AND chat_id = $2`
	upsertState  = `INSERT INTO chat_state (agent, chat_id, blocked, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (agent, chat_id) DO UPDATE SET blocked = excluded.blocked, updated_at = excluded.updated_at`
	insertUsage = `INSERT INTO usage (agent, chat_id, model, input_tokens, output_tokens, cached_tokens, time)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
)

// Chat returns the chat as agent last saw it, or an error wrapping mynah.ErrNotFound.
func (db *DB) Chat(ctx context.Context, agent string, id mynah.ChatID) (mynah.Chat, error) {
	c := mynah.Chat{ID: id}
	var typ string
	err := db.pool.QueryRow(ctx, queryChat, agent, int64(id)).Scan(&typ, &c.Title, &c.Username, &c.IsForum)
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
	err := db.pool.QueryRow(ctx, querySession, agent, int64(chat), thread).Scan(&start, &started)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
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
	if _, err := db.pool.Exec(ctx, upsertState, agent, int64(id), blocked, db.now().UnixMilli()); err != nil {
		return fail(ctx, err, "set chat %d of %s blocked=%t", id, agent, blocked)
	}
	return nil
}

// Blocked reports whether the chat's user blocked agent's bot; false when never set.
func (db *DB) Blocked(ctx context.Context, agent string, id mynah.ChatID) (bool, error) {
	var blocked bool
	err := db.pool.QueryRow(ctx, queryBlocked, agent, int64(id)).Scan(&blocked)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fail(ctx, err, "blocked state of chat %d of %s", id, agent)
	}
	return blocked, nil
}

// RecordUsage appends one usage row; a zero Time means now. Agent is required.
func (db *DB) RecordUsage(ctx context.Context, u mynah.Usage) error {
	if u.Agent == "" {
		return fmt.Errorf("postgres: record usage: no agent")
	}
	_, err := db.pool.Exec(ctx, insertUsage, u.Agent, int64(u.Chat), u.Model, u.InputTokens, u.OutputTokens,
		u.CachedTokens, storecodec.OrNow(u.Time, db.now).UnixMilli())
	if err != nil {
		return fail(ctx, err, "record usage of %s", u.Agent)
	}
	return nil
}
