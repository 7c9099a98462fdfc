package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

var (
	_ mynah.MediaNotes = (*DB)(nil)
	_ mynah.MediaQueue = (*DB)(nil)
)

// The media cache and queue.
const (
	mediaNoteColumns = `unique_id, kind, set_name, emoji, status, description, problem, source, attempts, updated`
	queryMediaNote   = `SELECT ` + mediaNoteColumns + ` FROM media_notes WHERE unique_id = $1`
	upsertMediaNote  = `INSERT INTO media_notes (` + mediaNoteColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (unique_id) DO UPDATE SET kind = excluded.kind, set_name = excluded.set_name,
			emoji = excluded.emoji, status = excluded.status, description = excluded.description,
			problem = excluded.problem, source = excluded.source, attempts = excluded.attempts,
			updated = excluded.updated`
	deleteMediaNote = `DELETE FROM media_notes WHERE unique_id = $1`
	// An edit that brings new media makes the message due at once, even when a retry of
	// its old media was deferred.
	insertMediaWork = `INSERT INTO media_queue AS q (agent, chat_id, message_id, due) VALUES ($1, $2, $3, $4)
		ON CONFLICT (agent, chat_id, message_id) DO UPDATE SET due = least(q.due, excluded.due)`
	queryPendingMedia = `SELECT agent, chat_id, message_id, due FROM media_queue
		WHERE due <= $1 ORDER BY due, id LIMIT $2`
	deferMedia       = `UPDATE media_queue SET due = $1 WHERE agent = $2 AND chat_id = $3 AND message_id = $4`
	doneMedia        = `DELETE FROM media_queue WHERE agent = $1 AND chat_id = $2 AND message_id = $3`
	queryStoredMedia = `SELECT media FROM messages WHERE agent = $1 AND chat_id = $2 AND message_id = $3 FOR UPDATE`
	setStoredMedia   = `UPDATE messages SET media = $1 WHERE agent = $2 AND chat_id = $3 AND message_id = $4`
)

// waitsForDescription reports whether one of m's attachments is a file with no
// description yet.
func waitsForDescription(m *mynah.Message) bool {
	for _, md := range m.Media {
		if md.FileUniqueID != "" && md.Description == "" {
			return true
		}
	}
	return false
}

// queueMedia adds the stored message m to the media queue, due now, when one of its
// attachments waits for a description.
func (db *DB) queueMedia(ctx context.Context, tx pgx.Tx, agent string, chat mynah.ChatID, m *mynah.Message) error {
	if !waitsForDescription(m) {
		return nil
	}
	_, err := tx.Exec(ctx, insertMediaWork, agent, int64(chat), int64(m.ID), db.now().UnixMilli())
	return err
}

// MediaNote returns the cached note of the file uniqueID, or an error wrapping
// mynah.ErrNotFound.
func (db *DB) MediaNote(ctx context.Context, uniqueID string) (mynah.MediaNote, error) {
	n, err := scanMediaNote(db.pool.QueryRow(ctx, queryMediaNote, uniqueID))
	if err != nil {
		return mynah.MediaNote{}, fail(ctx, err, "media note %q", uniqueID)
	}
	return n, nil
}

func scanMediaNote(s scanner) (mynah.MediaNote, error) {
	var (
		n            mynah.MediaNote
		kind, status string
		updated      sql.NullInt64
	)
	err := s.Scan(&n.UniqueID, &kind, &n.SetName, &n.Emoji, &status, &n.Description, &n.Problem, &n.Source,
		&n.Attempts, &updated)
	n.Kind, n.Status, n.Updated = mynah.MediaKind(kind), mynah.MediaStatus(status), storecodec.FromMillis(updated)
	return n, err
}

// PutMediaNote stores n in place of any note of the same file. A zero Updated means now.
func (db *DB) PutMediaNote(ctx context.Context, n mynah.MediaNote) error {
	switch {
	case n.UniqueID == "":
		return fmt.Errorf("postgres: put media note: no unique id")
	case n.Status != mynah.MediaDescribed && n.Status != mynah.MediaFailed && n.Status != mynah.MediaUnsupported:
		return fmt.Errorf("postgres: put media note %q: unknown status %q", n.UniqueID, n.Status)
	case n.Attempts < 0:
		return fmt.Errorf("postgres: put media note %q: %d attempts", n.UniqueID, n.Attempts)
	}
	_, err := db.pool.Exec(ctx, upsertMediaNote, n.UniqueID, string(n.Kind), n.SetName, n.Emoji, string(n.Status),
		n.Description, n.Problem, n.Source, n.Attempts, storecodec.OrNow(n.Updated, db.now).UnixMilli())
	if err != nil {
		return fail(ctx, err, "put media note %q", n.UniqueID)
	}
	return nil
}

// MediaNotes lists the notes f selects, most recently updated first (the set name
// matched without regard to case). It is the operator's listing, not the pipeline's.
func (db *DB) MediaNotes(ctx context.Context, f mynah.MediaFilter) ([]mynah.MediaNote, error) {
	var (
		where []string
		args  []any
	)
	for _, c := range []struct {
		cond, value string
	}{
		{"kind = $%d", string(f.Kind)},
		{"lower(set_name) = lower($%d)", f.SetName},
		{"emoji = $%d", f.Emoji},
		{"status = $%d", string(f.Status)},
	} {
		if c.value != "" {
			args = append(args, c.value)
			where = append(where, fmt.Sprintf(c.cond, len(args)))
		}
	}
	q := `SELECT ` + mediaNoteColumns + ` FROM media_notes`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY updated DESC, unique_id`
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q += fmt.Sprintf(` LIMIT $%d`, len(args))
	}
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fail(ctx, err, "media notes")
	}
	defer rows.Close()
	var out []mynah.MediaNote
	for rows.Next() {
		n, err := scanMediaNote(rows)
		if err != nil {
			return nil, fail(ctx, err, "media notes")
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "media notes")
	}
	return out, nil
}

// DeleteMediaNote removes the note of uniqueID, if any.
func (db *DB) DeleteMediaNote(ctx context.Context, uniqueID string) error {
	_, err := db.pool.Exec(ctx, deleteMediaNote, uniqueID)
	if err != nil {
		return fail(ctx, err, "delete media note %q", uniqueID)
	}
	return nil
}

// PendingMedia returns up to limit queued messages due at or before now, oldest first,
// across agents. A limit <= 0 returns none.
func (db *DB) PendingMedia(ctx context.Context, now time.Time, limit int) ([]mynah.MediaWork, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.pool.Query(ctx, queryPendingMedia, now.UnixMilli(), limit)
	if err != nil {
		return nil, fail(ctx, err, "pending media")
	}
	defer rows.Close()
	var out []mynah.MediaWork
	for rows.Next() {
		var (
			w        mynah.MediaWork
			chat, id int64
			due      sql.NullInt64
		)
		if err := rows.Scan(&w.Agent, &chat, &id, &due); err != nil {
			return nil, fail(ctx, err, "pending media")
		}
		w.Chat, w.Message, w.Due = mynah.ChatID(chat), mynah.MessageID(id), storecodec.FromMillis(due)
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "pending media")
	}
	return out, nil
}

// SetMediaDescription sets the description of each attachment of the stored message whose
// file_unique_id is uniqueID, in one transaction; an empty description clears it. The
// other attachments, and any field of the stored media this binary does not know, are
// kept as stored. The message is re-indexed for search in the same transaction.
func (db *DB) SetMediaDescription(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID, uniqueID, description string) error {
	if uniqueID == "" {
		return fmt.Errorf("postgres: set media description of message %d in chat %d of %s: no unique id", id, chat, agent)
	}
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var stored sql.NullString
		if err := tx.QueryRow(ctx, queryStoredMedia, agent, int64(chat), int64(id)).Scan(&stored); err != nil {
			return err
		}
		media, changed, err := storecodec.DescribeMedia(stored.String, uniqueID, description)
		if err != nil || !changed {
			return err
		}
		if _, err = tx.Exec(ctx, setStoredMedia, media, agent, int64(chat), int64(id)); err != nil {
			return err
		}
		return db.indexMessage(ctx, tx, agent, chat, id)
	})
	if err != nil {
		return fail(ctx, err, "set media description of message %d in chat %d of %s", id, chat, agent)
	}
	return nil
}

// DeferMedia sets when the queued message is due again; one not queued is left alone.
func (db *DB) DeferMedia(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID, due time.Time) error {
	_, err := db.pool.Exec(ctx, deferMedia, due.UnixMilli(), agent, int64(chat), int64(id))
	if err != nil {
		return fail(ctx, err, "defer media of message %d in chat %d of %s", id, chat, agent)
	}
	return nil
}

// DoneMedia removes the message from the media queue, if it is there.
func (db *DB) DoneMedia(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID) error {
	_, err := db.pool.Exec(ctx, doneMedia, agent, int64(chat), int64(id))
	if err != nil {
		return fail(ctx, err, "media of message %d in chat %d of %s done", id, chat, agent)
	}
	return nil
}
