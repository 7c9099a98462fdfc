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
	// insertMessageAccepted is insertMessageIndexed after upsertChat and upsertUser, in
	// one statement: binds as insertMessage, then the chat's type, title, username and
	// is_forum, then the users as arrays of ids, first names, last names, usernames and
	// is_bot (usersColumns). The chat and the users are updated as of stored_at.
	insertMessageAccepted = `WITH chat AS (INSERT INTO chats (agent, chat_id, type, title, username, is_forum, updated_at)
			VALUES ($1, $2, $19, $20, $21, $22, $18)
			ON CONFLICT (agent, chat_id) DO UPDATE SET type = excluded.type, title = excluded.title,
				username = excluded.username, is_forum = excluded.is_forum, updated_at = excluded.updated_at),
		usr AS (INSERT INTO users (agent, user_id, first_name, last_name, username, is_bot, updated_at)
			SELECT $1, u.id, u.first, u.last, u.username, u.bot, $18
			FROM unnest($23::bigint[], $24::text[], $25::text[], $26::text[], $27::boolean[]) AS u(id, first, last, username, bot)
			ON CONFLICT (agent, user_id) DO UPDATE SET first_name = excluded.first_name,
				last_name = excluded.last_name, username = excluded.username, is_bot = excluded.is_bot,
				updated_at = excluded.updated_at) ` + insertMessageIndexed
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
// too, unless another instance serves the chat: see queueClaimed). Two instances accepting the same
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
	err := db.inPipeTx(ctx, func(tx *pipeTx) error {
		accepted, queued = false, mynah.Turn{}
		fresh, err := db.acceptFirst(ctx, tx, agent, updateID, chat, in)
		if err != nil {
			return err
		}
		accepted = true
		if in.Edit {
			if err := db.editMessage(ctx, tx, agent, chat.ID, in.Message); err != nil {
				return err
			}
		}
		if fresh == nil {
			return nil
		}
		// What follows a new message (or an intake without one) goes in a second round trip.
		b := &pgx.Batch{}
		for _, q := range fresh {
			b.Queue(q.sql, q.args...)
		}
		if in.Reset {
			started := storecodec.OrNow(in.Message.Time, db.now)
			b.Queue(insertSession, agent, int64(chat.ID), in.Message.ThreadID, int64(in.Message.ID), started.UnixMilli())
		}
		var q string
		var args []any
		if t := in.Turn; t != nil {
			tc := t.Chat
			if tc == 0 {
				tc = chat.ID
			}
			if tc != chat.ID {
				b.Queue(ensureChat, agent, int64(tc), "", "", "", false, db.now().UnixMilli())
			}
			queued = *t
			queued.Agent, queued.Chat, queued.Created = agent, tc, storecodec.OrNow(t.Created, db.now)
			// The turn is queued without a notification: the instance that runs it is
			// told below, by queueClaimed.
			if q, args, err = db.insertTurnArgs(agent, queued, false); err != nil {
				return err
			}
		}
		tx.commitNext() // the second round trip ends the transaction
		if in.Turn == nil {
			_, err = execBatch(ctx, tx, b, "", nil)
			return err
		}
		// Another instance serving the chat runs the turn, not this one: the caller
		// gets no ID and reads the queue, which holds nothing of the chat for it.
		mine, err := db.queueClaimed(ctx, tx, b, q, args, agent, queued.Chat, &queued.ID)
		if err != nil || !mine {
			queued.ID = 0
		}
		return err
	})
	if errors.Is(err, errHandled) {
		return false, nil
	}
	if err != nil {
		return false, fail(ctx, err, "accept update %d of %s", updateID, agent)
	}
	if queued.ID != 0 {
		*in.Turn = queued
	}
	return accepted, nil
}

// usersColumns are users (those with an id, each id once, its last names winning as
// upsertUser applied one after the other would leave them) as the arrays
// insertMessageAccepted binds.
func usersColumns(users []mynah.User) []any {
	var (
		ids                    []int64
		first, last, usernames []string
		bots                   []bool
	)
	for _, u := range users {
		if u.ID == 0 {
			continue
		}
		if i := slices.Index(ids, int64(u.ID)); i >= 0 {
			first[i], last[i], usernames[i], bots[i] = u.FirstName, u.LastName, u.Username, u.IsBot
			continue
		}
		ids = append(ids, int64(u.ID))
		first, last, usernames, bots = append(first, u.FirstName), append(last, u.LastName), append(usernames, u.Username), append(bots, u.IsBot)
	}
	return []any{ids, first, last, usernames, bots}
}

// errHandled rolls back the intake of an update handled before.
var errHandled = errors.New("update handled before")

// statement is a statement and its arguments, to be sent in a batch.
type statement struct {
	sql  string
	args []any
}

// acceptFirst sends, in one round trip, the dedupe key of the update, the chat, the users
// and the new message of in (not an edit) in tx. It fails with errHandled when the key
// was taken, the transaction then to be rolled back. It returns the statements that
// complete a new message (its index entry, its media queue), or nil when in's message
// was stored already: then no reset and no turn apply.
func (db *DB) acceptFirst(ctx context.Context, tx pgx.Tx, agent string, updateID int64, chat mynah.Chat, in mynah.Intake) ([]statement, error) {
	now := db.now().UnixMilli()
	b := &pgx.Batch{}
	b.Queue(acceptUpdate, agent, updateID, now)
	m := in.Message
	store := m != nil && !in.Edit // then chat.ID is not 0 (validateIntake)
	if store {
		// The chat, the users and the message in one statement.
		args, err := db.messageArgs(agent, chat.ID, m)
		if err != nil {
			return nil, err
		}
		args = append(args, string(chat.Type), chat.Title, chat.Username, chat.IsForum)
		b.Queue(insertMessageAccepted, append(args, usersColumns(in.Users)...)...)
	} else {
		if chat.ID != 0 {
			b.Queue(upsertChat, agent, int64(chat.ID), string(chat.Type), chat.Title, chat.Username, chat.IsForum, now)
		}
		for _, u := range in.Users {
			if u.ID != 0 {
				b.Queue(upsertUser, agent, int64(u.ID), u.FirstName, u.LastName, u.Username, u.IsBot, now)
			}
		}
	}
	var (
		seq    int64
		prev   sql.NullString
		stored = true
	)
	res := tx.SendBatch(ctx, b)
	err := func() error {
		if err := res.QueryRow().Scan(nil); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return errHandled
			}
			return err
		}
		if !store {
			for range b.Len() - 1 {
				if _, err := res.Exec(); err != nil {
					return err
				}
			}
			return nil
		}
		err := res.QueryRow().Scan(&seq, &prev)
		if errors.Is(err, pgx.ErrNoRows) {
			stored = false
			return nil
		}
		return err
	}()
	if err := errors.Join(err, res.Close()); err != nil {
		return nil, err
	}
	fresh := []statement{}
	switch {
	case !store:
	case !stored:
		return nil, nil
	default:
		if args, ok := entryArgs(agent, chat.ID, m, seq, prev); ok {
			fresh = append(fresh, statement{upsertSearchDocs, args})
		}
		if waitsForDescription(m) {
			fresh = append(fresh, statement{insertMediaWork, []any{agent, int64(chat.ID), int64(m.ID), now}})
		}
	}
	return fresh, nil
}

// execBatch sends b and then, when q is not empty, q (a statement returning an id) in one
// round trip in tx, and returns q's id.
func execBatch(ctx context.Context, tx pgx.Tx, b *pgx.Batch, q string, args []any) (int64, error) {
	n := b.Len()
	if q != "" {
		b.Queue(q, args...)
	}
	if b.Len() == 0 {
		return 0, nil
	}
	res := tx.SendBatch(ctx, b)
	var id int64
	err := func() error {
		for range n {
			if _, err := res.Exec(); err != nil {
				return err
			}
		}
		if q == "" {
			return nil
		}
		if q == insertTurnNotify {
			return res.QueryRow().Scan(&id, nil)
		}
		return res.QueryRow().Scan(&id)
	}()
	return id, errors.Join(err, res.Close())
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
