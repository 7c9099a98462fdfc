package postgres

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

// messageColumns are the columns scanMessage reads, from messages m joined with chats c.
const messageColumns = `m.chat_id, m.message_id, m.thread_id,
	m.sender_id, m.sender_first_name, m.sender_last_name, m.sender_username, m.sender_is_bot,
	m.time, m.edited, m.text, m.entities, m.reply_to, m.forward, m.media, m.outgoing,
	coalesce(c.type, ''), coalesce(c.title, ''), coalesce(c.username, ''), coalesce(c.is_forum, false)`

const messageFrom = ` FROM messages m LEFT JOIN chats c ON c.agent = m.agent AND c.chat_id = m.chat_id `

const (
	queryMessage = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = $1 AND m.chat_id = $2 AND m.message_id = $3`
	// History walks the primary key (or messages_thread) backwards from the newest id and
	// stops after limit rows: its cost is O(limit), whatever the size of the chat.
	queryHistory = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = $1 AND m.chat_id = $2 AND m.message_id > $3 ORDER BY m.message_id DESC LIMIT $4`
	queryHistoryThread = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = $1 AND m.chat_id = $2 AND m.thread_id = $3 AND m.message_id > $4 ORDER BY m.message_id DESC LIMIT $5`

	insertMessage = `INSERT INTO messages (agent, chat_id, message_id, thread_id,
		sender_id, sender_first_name, sender_last_name, sender_username, sender_is_bot,
		time, edited, text, entities, reply_to, forward, media, outgoing, stored_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
		ON CONFLICT (agent, chat_id, message_id) DO NOTHING`
	// insertMessageIndexed is insertMessage returning, for a row it inserts, its seq and the
	// messages before it in the chat (previousOf): what indexNew needs.
	insertMessageIndexed = insertMessage + ` RETURNING seq, ` + previousHead +
		`p.agent = $1 AND p.chat_id = $2 AND p.message_id < $3` + previousTail
	// insertMessageInChat is insertMessageIndexed after ensureChat, in one statement: binds
	// as insertMessage, then the chat's type, title, username and is_forum.
	insertMessageInChat = `WITH chat AS (INSERT INTO chats (agent, chat_id, type, title, username, is_forum, updated_at)
		VALUES ($1, $2, $19, $20, $21, $22, $18) ON CONFLICT (agent, chat_id) DO NOTHING) ` + insertMessageIndexed
	updateEdited = `UPDATE messages SET text = $1, entities = $2, media = $3, edited = $4
		WHERE agent = $5 AND chat_id = $6 AND message_id = $7`
	// ensureChat records a chat seen only through an outgoing message, so the message's
	// foreign key holds; a chat already known keeps its row.
	ensureChat = `INSERT INTO chats (agent, chat_id, type, title, username, is_forum, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (agent, chat_id) DO NOTHING`
)

// Message returns one stored message of agent, with Chat as last seen, or an error
// wrapping mynah.ErrNotFound.
func (db *DB) Message(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID) (mynah.Message, error) {
	m, err := scanMessage(agent, db.pool.QueryRow(ctx, queryMessage, agent, int64(chat), int64(id)))
	if err != nil {
		return mynah.Message{}, fail(ctx, err, "message %d in chat %d of %s", id, chat, agent)
	}
	return m, nil
}

// History returns the newest limit messages of agent's chat with id > after, oldest first;
// thread 0 means the whole chat, another value one forum topic. A limit <= 0 returns none.
// The cost is proportional to limit, not to the size of the chat.
func (db *DB) History(ctx context.Context, agent string, chat mynah.ChatID, thread int64, after mynah.MessageID, limit int) ([]mynah.Message, error) {
	if limit <= 0 {
		return nil, nil
	}
	var (
		rows pgx.Rows
		err  error
	)
	if thread == 0 {
		rows, err = db.pool.Query(ctx, queryHistory, agent, int64(chat), int64(after), limit)
	} else {
		rows, err = db.pool.Query(ctx, queryHistoryThread, agent, int64(chat), thread, int64(after), limit)
	}
	if err != nil {
		return nil, fail(ctx, err, "history of chat %d of %s", chat, agent)
	}
	out, err := scanMessages(agent, rows)
	if err != nil {
		return nil, fail(ctx, err, "history of chat %d of %s", chat, agent)
	}
	slices.Reverse(out)
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanMessage(agent string, s scanner, more ...any) (mynah.Message, error) {
	var (
		m                    = mynah.Message{Agent: agent}
		chatID, id, senderID int64
		senderBot, outgoing  bool
		forum                bool
		chatType             string
		at, edited           sql.NullInt64
		j                    storecodec.MessageJSON
	)
	err := s.Scan(append([]any{&chatID, &id, &m.ThreadID,
		&senderID, &m.Sender.FirstName, &m.Sender.LastName, &m.Sender.Username, &senderBot,
		&at, &edited, &m.Text, &j.Entities, &j.ReplyTo, &j.Forward, &j.Media, &outgoing,
		&chatType, &m.Chat.Title, &m.Chat.Username, &forum}, more...)...)
	if err != nil {
		return mynah.Message{}, err
	}
	m.Chat.ID, m.Chat.Type, m.Chat.IsForum = mynah.ChatID(chatID), mynah.ChatType(chatType), forum
	m.ID, m.Sender.ID, m.Sender.IsBot, m.Outgoing = mynah.MessageID(id), mynah.UserID(senderID), senderBot, outgoing
	m.Time, m.Edited = storecodec.FromMillis(at), storecodec.FromMillis(edited)
	if err := storecodec.DecodeMessage(&m, j); err != nil {
		return mynah.Message{}, err
	}
	return m, nil
}

// scanMessages reads every row of rows as a message and closes rows.
func scanMessages(agent string, rows pgx.Rows) ([]mynah.Message, error) {
	defer rows.Close()
	var out []mynah.Message
	for rows.Next() {
		m, err := scanMessage(agent, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// storeMessage inserts m as agent's message in chat unless a message with its id is
// stored already, in which case the stored row is kept, indexes it for search and queues
// a new message whose media wait for a description. It reports whether it inserted.
func (db *DB) storeMessage(ctx context.Context, tx pgx.Tx, agent string, chat mynah.ChatID, m *mynah.Message) (bool, error) {
	return db.storeMessageIn(ctx, tx, agent, chat, m, nil)
}

// storeMessageIn is storeMessage that, when ensure is not nil, also records the chat
// ensure (with chat's id) as ensureChat does, in the same statement.
func (db *DB) storeMessageIn(ctx context.Context, tx pgx.Tx, agent string, chat mynah.ChatID, m *mynah.Message, ensure *mynah.Chat) (bool, error) {
	args, err := db.messageArgs(agent, chat, m)
	if err != nil {
		return false, err
	}
	q := insertMessageIndexed
	if ensure != nil {
		q = insertMessageInChat
		args = append(args, string(ensure.Type), ensure.Title, ensure.Username, ensure.IsForum)
	}
	// The insert returns what the index entry needs beyond m itself, so that indexing a new
	// message reads nothing back: one round trip fewer per message stored.
	var (
		seq  int64
		prev sql.NullString
	)
	err = tx.QueryRow(ctx, q, args...).Scan(&seq, &prev)
	if errors.Is(err, pgx.ErrNoRows) { // stored already
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := db.indexNew(ctx, tx, agent, chat, m, seq, prev); err != nil {
		return false, err
	}
	return true, db.queueMedia(ctx, tx, agent, chat, m)
}

// messageArgs are the arguments of insertMessage for m.
func (db *DB) messageArgs(agent string, chat mynah.ChatID, m *mynah.Message) ([]any, error) {
	j, err := storecodec.EncodeMessage(m)
	if err != nil {
		return nil, err
	}
	s := m.Sender
	return []any{agent, int64(chat), int64(m.ID), m.ThreadID,
		int64(s.ID), s.FirstName, s.LastName, s.Username, s.IsBot,
		storecodec.Millis(m.Time).Int64, storecodec.Millis(m.Edited), m.Text, j.Entities, j.ReplyTo, j.Forward, j.Media,
		m.Outgoing, db.now().UnixMilli()}, nil
}

// editMessage applies an edit: text, entities and media are replaced and edited is set,
// the search entry is rebuilt, and the message is queued when its new media wait for a
// description. An edit of a message never stored stores the edited message.
func (db *DB) editMessage(ctx context.Context, tx pgx.Tx, agent string, chat mynah.ChatID, m *mynah.Message) error {
	e := *m
	e.Edited = storecodec.OrNow(e.Edited, db.now)
	j, err := storecodec.EncodeMessage(&e)
	if err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, updateEdited, e.Text, j.Entities, j.Media, storecodec.Millis(e.Edited),
		agent, int64(chat), int64(e.ID))
	if err != nil {
		return err
	}
	if tag.RowsAffected() > 0 {
		if err := db.indexMessage(ctx, tx, agent, chat, e.ID); err != nil {
			return err
		}
		return db.queueMedia(ctx, tx, agent, chat, &e)
	}
	_, err = db.storeMessage(ctx, tx, agent, chat, &e)
	return err
}
