package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

var (
	_ mynah.MediaNotes = (*DB)(nil)
	_ mynah.MediaQueue = (*DB)(nil)
)

// The media cache and queue (migration 0016).
const (
	mediaNoteColumns = `unique_id, kind, set_name, emoji, status, description, problem, source, attempts, updated`
	queryMediaNote   = `SELECT ` + mediaNoteColumns + ` FROM media_notes WHERE unique_id = ?`
	upsertMediaNote  = `INSERT INTO media_notes (` + mediaNoteColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (unique_id) DO UPDATE SET kind = excluded.kind, set_name = excluded.set_name,
			emoji = excluded.emoji, status = excluded.status, description = excluded.description,
			problem = excluded.problem, source = excluded.source, attempts = excluded.attempts,
			updated = excluded.updated`
	deleteMediaNote = `DELETE FROM media_notes WHERE unique_id = ?`
	// An edit that brings new media makes the message due at once, even when a retry of
	// its old media was deferred.
	insertMediaWork = `INSERT INTO media_queue (agent, chat_id, message_id, due) VALUES (?, ?, ?, ?)
		ON CONFLICT (agent, chat_id, message_id) DO UPDATE SET due = min(due, excluded.due)`
	queryPendingMedia = `SELECT agent, chat_id, message_id, due FROM media_queue
		WHERE due <= ? ORDER BY due, id LIMIT +?`
	deferMedia       = `UPDATE media_queue SET due = ? WHERE agent = ? AND chat_id = ? AND message_id = ?`
	doneMedia        = `DELETE FROM media_queue WHERE agent = ? AND chat_id = ? AND message_id = ?`
	queryStoredMedia = `SELECT media FROM messages WHERE agent = ? AND chat_id = ? AND message_id = ?`
	setStoredMedia   = `UPDATE messages SET media = ? WHERE agent = ? AND chat_id = ? AND message_id = ?`
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
func (db *DB) queueMedia(ctx context.Context, tx *txn, agent string, chat mynah.ChatID, m *mynah.Message) error {
	if !waitsForDescription(m) {
		return nil
	}
	_, err := tx.exec(ctx, db.stmts.insertMediaWork, agent, int64(chat), int64(m.ID), db.now().UnixMilli())
	return err
}

// MediaNote returns the cached note of the file uniqueID, or an error wrapping
// mynah.ErrNotFound.
func (db *DB) MediaNote(ctx context.Context, uniqueID string) (mynah.MediaNote, error) {
	n, err := scanMediaNote(db.stmts.mediaNote.QueryRowContext(ctx, uniqueID))
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
		return fmt.Errorf("sqlite: put media note: no unique id")
	case n.Status != mynah.MediaDescribed && n.Status != mynah.MediaFailed && n.Status != mynah.MediaUnsupported:
		return fmt.Errorf("sqlite: put media note %q: unknown status %q", n.UniqueID, n.Status)
	case n.Attempts < 0:
		return fmt.Errorf("sqlite: put media note %q: %d attempts", n.UniqueID, n.Attempts)
	}
	err := db.inTx(ctx, func(tx *txn) error {
		_, err := tx.exec(ctx, db.stmts.upsertMediaNote, n.UniqueID, string(n.Kind), n.SetName, n.Emoji, string(n.Status),
			n.Description, n.Problem, n.Source, n.Attempts, storecodec.OrNow(n.Updated, db.now).UnixMilli())
		return err
	})
	if err != nil {
		return fail(ctx, err, "put media note %q", n.UniqueID)
	}
	return nil
}

// MediaNotes lists the notes f selects, most recently updated first. It is the
// operator's listing, not the pipeline's: a filter on kind, set, emoji or status reads
// the notes in update order and keeps the matching ones.
func (db *DB) MediaNotes(ctx context.Context, f mynah.MediaFilter) ([]mynah.MediaNote, error) {
	var (
		where []string
		args  []any
	)
	for _, c := range []struct {
		cond, value string
	}{
		{"kind = ?", string(f.Kind)},
		{"set_name = ? COLLATE NOCASE", f.SetName},
		{"emoji = ?", f.Emoji},
		{"status = ?", string(f.Status)},
	} {
		if c.value != "" {
			where = append(where, c.cond)
			args = append(args, c.value)
		}
	}
	q := `SELECT ` + mediaNoteColumns + ` FROM media_notes`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY updated DESC, unique_id`
	if f.Limit > 0 {
		q += ` LIMIT +?`
		args = append(args, f.Limit)
	}
	rows, err := db.read.QueryContext(ctx, q, args...)
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
	err := db.inTx(ctx, func(tx *txn) error {
		_, err := tx.exec(ctx, db.stmts.deleteMediaNote, uniqueID)
		return err
	})
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
	rows, err := db.stmts.pendingMedia.QueryContext(ctx, now.UnixMilli(), limit)
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
// kept as stored. Updating the media column re-indexes the message for search (the
// messages_search_edit trigger, or the next batch for a message not indexed yet).
func (db *DB) SetMediaDescription(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID, uniqueID, description string) error {
	if uniqueID == "" {
		return fmt.Errorf("sqlite: set media description of message %d in chat %d of %s: no unique id", id, chat, agent)
	}
	err := db.inTx(ctx, func(tx *txn) error {
		var stored sql.NullString
		if err := tx.queryRow(ctx, db.stmts.queryStoredMedia, agent, int64(chat), int64(id)).Scan(&stored); err != nil {
			return err
		}
		media, changed, err := storecodec.DescribeMedia(stored.String, uniqueID, description)
		if err != nil || !changed {
			return err
		}
		_, err = tx.exec(ctx, db.stmts.setStoredMedia, media, agent, int64(chat), int64(id))
		return err
	})
	if err != nil {
		return fail(ctx, err, "set media description of message %d in chat %d of %s", id, chat, agent)
	}
	return nil
}

// DeferMedia sets when the queued message is due again; one not queued is left alone.
func (db *DB) DeferMedia(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID, due time.Time) error {
	err := db.inTx(ctx, func(tx *txn) error {
		_, err := tx.exec(ctx, db.stmts.deferMedia, due.UnixMilli(), agent, int64(chat), int64(id))
		return err
	})
	if err != nil {
		return fail(ctx, err, "defer media of message %d in chat %d of %s", id, chat, agent)
	}
	return nil
}

// DoneMedia removes the message from the media queue, if it is there.
func (db *DB) DoneMedia(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID) error {
	err := db.inTx(ctx, func(tx *txn) error {
		_, err := tx.exec(ctx, db.stmts.doneMedia, agent, int64(chat), int64(id))
		return err
	})
	if err != nil {
		return fail(ctx, err, "media of message %d in chat %d of %s done", id, chat, agent)
	}
	return nil
}
