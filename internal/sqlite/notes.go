package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mynah-ai/mynah"
)

// The notes index (migration 0011) keys each chunk as agent_no << noteBits | n, so that an
// agent's chunks are one rowid range of note_search.
const noteBits = 40

const (
	queryNoteHash  = `SELECT hash FROM note_files WHERE agent = ? AND kind = ? AND path = ?`
	upsertNoteFile = `INSERT INTO note_files (agent, kind, path, hash, size, mtime, scope, chat_id, user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (agent, kind, path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mtime = excluded.mtime,
		scope = excluded.scope, chat_id = excluded.chat_id, user_id = excluded.user_id`
	deleteNoteChunks = `DELETE FROM note_chunks WHERE agent = ? AND kind = ? AND path = ?`
	deleteNoteFile   = `DELETE FROM note_files WHERE agent = ? AND kind = ? AND path = ?`
	queryNextChunk   = `SELECT coalesce(max(id) + 1, ?1) FROM note_chunks WHERE id BETWEEN ?1 AND ?2`
	insertNoteChunk  = `INSERT INTO note_chunks (id, agent, kind, path, start_line, end_line, text, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	noteFileColumns  = `f.kind, f.path, f.hash, f.size, f.mtime, f.scope, f.chat_id, f.user_id`
	queryNoteFiles   = `SELECT ` + noteFileColumns + ` FROM note_files f WHERE agent = ?`
	// The scope filter is inside the ranking, so that notes of other chats do not take the
	// places of the ones this chat may see: ?5 is All, ?6 the chat (a private chat's id is
	// its user's).
	querySearchNotes = `SELECT ` + noteFileColumns + `, c.start_line, c.end_line, c.text, c.hash, h.score FROM (
		SELECT note_search.rowid AS id, -note_search.rank AS score FROM note_search
		JOIN note_chunks sc ON sc.id = note_search.rowid
		JOIN note_files sf ON sf.agent = sc.agent AND sf.kind = sc.kind AND sf.path = sc.path
		WHERE note_search MATCH ?1 AND note_search.rowid BETWEEN ?2 AND ?3
		AND (?5 OR sf.scope = 'global' OR (sf.scope = 'chat' AND sf.chat_id = ?6) OR (sf.scope = 'user' AND sf.user_id = ?6))
		ORDER BY note_search.rank LIMIT +?4) h
		JOIN note_chunks c ON c.id = h.id
		JOIN note_files f ON f.agent = c.agent AND f.kind = c.kind AND f.path = c.path`
)

var _ mynah.NoteIndex = (*DB)(nil)

// NoteFiles returns every indexed note file of agent.
func (db *DB) NoteFiles(ctx context.Context, agent string) ([]mynah.NoteFile, error) {
	rows, err := db.stmts.noteFiles.QueryContext(ctx, agent)
	if err != nil {
		return nil, fail(ctx, err, "note files of %s", agent)
	}
	defer rows.Close()
	var out []mynah.NoteFile
	for rows.Next() {
		f := mynah.NoteFile{Agent: agent}
		if err := scanNoteFile(rows, &f); err != nil {
			return nil, fail(ctx, err, "note files of %s", agent)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "note files of %s", agent)
	}
	return out, nil
}

// PutNote records f and, when its hash changed, replaces its chunks, in one transaction.
func (db *DB) PutNote(ctx context.Context, f mynah.NoteFile, chunks []mynah.NoteChunk) error {
	if f.Kind != mynah.NoteCurated && f.Kind != mynah.NoteEpisodic {
		return fmt.Errorf("sqlite: put note %q of %s: unknown kind %q", f.Path, f.Agent, f.Kind)
	}
	if f.Path == "" {
		return fmt.Errorf("sqlite: put note of %s: empty path", f.Agent)
	}
	switch {
	case f.Scope == "":
		f.Scope = mynah.NoteUnscoped
	case f.Scope == mynah.NoteChat && f.Chat == 0, f.Scope == mynah.NoteUser && f.User == 0:
		return fmt.Errorf("sqlite: put note %q of %s: scope %q without its chat or user", f.Path, f.Agent, f.Scope)
	case f.Scope != mynah.NoteGlobal && f.Scope != mynah.NoteChat && f.Scope != mynah.NoteUser && f.Scope != mynah.NoteUnscoped:
		return fmt.Errorf("sqlite: put note %q of %s: unknown scope %q", f.Path, f.Agent, f.Scope)
	}
	err := db.inTx(ctx, func(tx *txn) error {
		var old string
		err := tx.queryRow(ctx, db.stmts.noteHash, f.Agent, f.Kind, f.Path).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		same := err == nil && old == f.Hash
		if _, err := tx.exec(ctx, db.stmts.upsertNoteFile, f.Agent, f.Kind, f.Path, f.Hash, f.Size, f.ModTime.UnixNano(),
			f.Scope, int64(f.Chat), int64(f.User)); err != nil {
			return err
		}
		if same {
			return nil
		}
		if _, err := tx.exec(ctx, db.stmts.deleteNoteChunks, f.Agent, f.Kind, f.Path); err != nil {
			return err
		}
		if len(chunks) == 0 {
			return nil
		}
		if _, err := tx.exec(ctx, db.stmts.insertSearchAgent, f.Agent); err != nil {
			return err
		}
		var no int64
		if err := tx.queryRow(ctx, db.stmts.agentNoW, f.Agent).Scan(&no); err != nil {
			return err
		}
		lo, hi := no<<noteBits, (no+1)<<noteBits-1
		var next int64
		if err := tx.queryRow(ctx, db.stmts.nextNoteChunk, lo, hi).Scan(&next); err != nil {
			return err
		}
		if next+int64(len(chunks)) > hi {
			return errors.New("no chunk numbers left for the agent")
		}
		ins, err := tx.stmt(ctx, db.stmts.insertNoteChunk)
		if err != nil {
			return err
		}
		for i, c := range chunks {
			if _, err := ins.ExecContext(ctx, next+int64(i), f.Agent, f.Kind, f.Path, c.StartLine, c.EndLine, c.Text, c.Hash); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fail(ctx, err, "index note %s %q of %s", f.Kind, f.Path, f.Agent)
	}
	return nil
}

// RemoveNote forgets a note file and its chunks (the cascade and its trigger empty the
// keyword index of them).
func (db *DB) RemoveNote(ctx context.Context, agent string, kind mynah.NoteKind, path string) error {
	err := db.inTx(ctx, func(tx *txn) error {
		_, err := tx.exec(ctx, db.stmts.deleteNoteFile, agent, kind, path)
		return err
	})
	if err != nil {
		return fail(ctx, err, "remove note %s %q of %s", kind, path, agent)
	}
	return nil
}

// SearchNotes returns the best chunks of q.Agent's notes for q.Terms. It ranks inside the
// agent's rowid range of the index only.
func (db *DB) SearchNotes(ctx context.Context, q mynah.NoteQuery) ([]mynah.NoteHit, error) {
	match := matchExpr(stemTerms(q.Terms), []string{"text"})
	if match == "" || q.Limit <= 0 {
		return nil, nil
	}
	var no int64
	err := db.stmts.agentScope.QueryRowContext(ctx, q.Agent).Scan(&no)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil // the agent has indexed nothing
	}
	if err != nil {
		return nil, fail(ctx, err, "search notes of %s", q.Agent)
	}
	rows, err := db.stmts.searchNotes.QueryContext(ctx, match, no<<noteBits, (no+1)<<noteBits-1, q.Limit, q.All, int64(q.Chat))
	if err != nil {
		return nil, fail(ctx, err, "search notes of %s", q.Agent)
	}
	defer rows.Close()
	var hits []mynah.NoteHit
	for rows.Next() {
		h := mynah.NoteHit{File: mynah.NoteFile{Agent: q.Agent}}
		if err := scanNoteFile(rows, &h.File, &h.Chunk.StartLine, &h.Chunk.EndLine, &h.Chunk.Text, &h.Chunk.Hash, &h.Score); err != nil {
			return nil, fail(ctx, err, "search notes of %s", q.Agent)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "search notes of %s", q.Agent)
	}
	// FTS5 ranked the chunks (ORDER BY rank); the joins keep that order in practice, and
	// sorting the few winners here guarantees it without a sort in the plan.
	slices.SortStableFunc(hits, func(a, b mynah.NoteHit) int { return cmp.Compare(b.Score, a.Score) })
	return hits, nil
}

// scanNoteFile reads noteFileColumns into f, then the rest of the row into more.
func scanNoteFile(rows *sql.Rows, f *mynah.NoteFile, more ...any) error {
	var mtime, chat, user int64
	if err := rows.Scan(append([]any{&f.Kind, &f.Path, &f.Hash, &f.Size, &mtime, &f.Scope, &chat, &user}, more...)...); err != nil {
		return err
	}
	f.ModTime, f.Chat, f.User = time.Unix(0, mtime), mynah.ChatID(chat), mynah.UserID(user)
	return nil
}
