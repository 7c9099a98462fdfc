package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

// messageColumns are the columns scanMessage reads, from messages m joined with chats c.
const messageColumns = `m.chat_id, m.message_id, m.thread_id,
	m.sender_id, m.sender_first_name, m.sender_last_name, m.sender_username, m.sender_is_bot,
	m.time, m.edited, m.text, m.entities, m.reply_to, m.forward, m.media, m.outgoing,
	coalesce(c.type, ''), coalesce(c.title, ''), coalesce(c.username, ''), coalesce(c.is_forum, 0)`

// historyColumns are messageColumns with the chat's left empty: every message of a
// History is of one chat, read once.
const historyColumns = `m.chat_id, m.message_id, m.thread_id,
	m.sender_id, m.sender_first_name, m.sender_last_name, m.sender_username, m.sender_is_bot,
	m.time, m.edited, m.text, m.entities, m.reply_to, m.forward, m.media, m.outgoing,
	'', '', '', 0`

const messageFrom = ` FROM messages m LEFT JOIN chats c ON c.agent = m.agent AND c.chat_id = m.chat_id `

const (
	queryMessage = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = ? AND m.chat_id = ? AND m.message_id = ?`
	// History walks the primary key (or messages_thread) backwards from the newest id and
	// stops after limit rows: its cost is O(limit), whatever the size of the chat.
	// History reads the chat once (queryChat) instead of joining its row to every message.
	queryHistory = `SELECT ` + historyColumns + ` FROM messages m ` +
		`WHERE m.agent = ? AND m.chat_id = ? AND m.message_id > ? ORDER BY m.message_id DESC LIMIT +?`
	queryHistoryThread = `SELECT ` + historyColumns + ` FROM messages m ` +
		`WHERE m.agent = ? AND m.chat_id = ? AND m.thread_id = ? AND m.message_id > ? ORDER BY m.message_id DESC LIMIT +?`

	insertMessage = `INSERT INTO messages (agent, chat_id, message_id, thread_id,
		sender_id, sender_first_name, sender_last_name, sender_username, sender_is_bot,
		time, edited, text, entities, reply_to, forward, media, outgoing, stored_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (agent, chat_id, message_id) DO NOTHING`
	updateEdited = `UPDATE messages SET text = ?, entities = ?, media = ?, edited = ?
		WHERE agent = ? AND chat_id = ? AND message_id = ?`
	// ensureChat records a chat seen only through an outgoing message, so the message's
	// foreign key holds; a chat already known keeps its row.
	ensureChat = `INSERT INTO chats (agent, chat_id, type, title, username, is_forum, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (agent, chat_id) DO NOTHING`
)

// Message returns one stored message of agent, with Chat as last seen, or an error
// wrapping mynah.ErrNotFound.
func (db *DB) Message(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID) (mynah.Message, error) {
	m, err := scanMessage(agent, db.stmts.message.QueryRowContext(ctx, agent, int64(chat), int64(id)))
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
		rows *sql.Rows
		err  error
	)
	if thread == 0 {
		rows, err = db.stmts.history.QueryContext(brief(ctx), agent, int64(chat), int64(after), limit)
	} else {
		rows, err = db.stmts.historyThread.QueryContext(brief(ctx), agent, int64(chat), thread, int64(after), limit)
	}
	if err != nil {
		return nil, fail(ctx, err, "history of chat %d of %s", chat, agent)
	}
	defer rows.Close()
	// A message is ~330 bytes: room for 64 up front was 21 KB a turn, most of it unused in
	// young chats; append grows it for long ones.
	out := make([]mynah.Message, 0, min(limit, 16))
	for rows.Next() {
		m, err := scanMessage(agent, rows)
		if err != nil {
			return nil, fail(ctx, err, "history of chat %d of %s", chat, agent)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "history of chat %d of %s", chat, agent)
	}
	if len(out) > 0 {
		c, err := db.Chat(ctx, agent, chat)
		if err != nil && !errors.Is(err, mynah.ErrNotFound) {
			return nil, err
		}
		c.ID = chat
		for i := range out {
			out[i].Chat = c
		}
	}
	slices.Reverse(out)
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanMessage(agent string, s scanner) (mynah.Message, error) {
	var (
		m                    = mynah.Message{Agent: agent}
		chatID, id, senderID int64
		senderBot, outgoing  bool
		forum                bool
		chatType             string
		at, edited           sql.NullInt64
		j                    storecodec.MessageJSON
	)
	err := s.Scan(&chatID, &id, &m.ThreadID,
		&senderID, &m.Sender.FirstName, &m.Sender.LastName, &m.Sender.Username, &senderBot,
		&at, &edited, &m.Text, &j.Entities, &j.ReplyTo, &j.Forward, &j.Media, &outgoing,
		&chatType, &m.Chat.Title, &m.Chat.Username, &forum)
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

// storeMessage inserts m as agent's message in chat unless a message with its id is
// stored already, in which case the stored row is kept, and queues a new message whose
// media wait for a description. It reports whether it inserted.
func (db *DB) storeMessage(ctx context.Context, tx *txn, agent string, chat mynah.ChatID, m *mynah.Message) (bool, error) {
	ok, err := db.insertMessage(ctx, tx, agent, chat, m)
	if err != nil || !ok {
		return ok, err
	}
	return true, db.queueMedia(ctx, tx, agent, chat, m)
}

// insertMessage is storeMessage without the media queue: imported messages carry no file
// ids the agent's bot could download.
func (db *DB) insertMessage(ctx context.Context, tx *txn, agent string, chat mynah.ChatID, m *mynah.Message) (bool, error) {
	j, err := storecodec.EncodeMessage(m)
	if err != nil {
		return false, err
	}
	s := m.Sender
	res, err := tx.exec(ctx, db.stmts.insertMessage, agent, int64(chat), int64(m.ID), m.ThreadID,
		int64(s.ID), s.FirstName, s.LastName, s.Username, boolInt(s.IsBot),
		storecodec.Millis(m.Time).Int64, storecodec.Millis(m.Edited), m.Text, j.Entities, j.ReplyTo, j.Forward, j.Media,
		boolInt(m.Outgoing), db.now().UnixMilli())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// editMessage applies an edit: text, entities and media are replaced and edited is set,
// and the message is queued when its new media wait for a description. An edit of a
// message never stored stores the edited message.
func (db *DB) editMessage(ctx context.Context, tx *txn, agent string, chat mynah.ChatID, m *mynah.Message) error {
	e := *m
	e.Edited = storecodec.OrNow(e.Edited, db.now)
	j, err := storecodec.EncodeMessage(&e)
	if err != nil {
		return err
	}
	res, err := tx.exec(ctx, db.stmts.updateEdited, e.Text, j.Entities, j.Media, storecodec.Millis(e.Edited),
		agent, int64(chat), int64(e.ID))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		if err != nil {
			return err
		}
		return db.queueMedia(ctx, tx, agent, chat, &e)
	}
	_, err = db.storeMessage(ctx, tx, agent, chat, &e)
	return err
}
