package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
)

const (
	queryNoteHash  = `SELECT hash FROM note_files WHERE agent = $1 AND kind = $2 AND path = $3 FOR UPDATE`
	upsertNoteFile = `INSERT INTO note_files (agent, kind, path, hash, size, mtime, scope, chat_id, user_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (agent, kind, path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mtime = excluded.mtime,
		scope = excluded.scope, chat_id = excluded.chat_id, user_id = excluded.user_id`
	deleteNoteChunks = `DELETE FROM note_chunks WHERE agent = $1 AND kind = $2 AND path = $3`
	deleteNoteFile   = `DELETE FROM note_files WHERE agent = $1 AND kind = $2 AND path = $3`
	insertNoteChunk  = `INSERT INTO note_chunks (agent, kind, path, start_line, end_line, text, hash, doc, len)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8::tsvector, $9)`
	noteFileColumns = `f.kind, f.path, f.hash, f.size, f.mtime, f.scope, f.chat_id, f.user_id`
	queryNoteFiles  = `SELECT ` + noteFileColumns + ` FROM note_files f WHERE agent = $1`
	// queryNoteStats is what BM25 needs of the agent's chunks: how many, their tokens, and
	// how many match each term.
	queryNoteStats = `SELECT (SELECT count(*) FROM note_chunks WHERE agent = $1),
		(SELECT coalesce(sum(len), 0)::bigint FROM note_chunks WHERE agent = $1),
		ARRAY(SELECT (SELECT count(*) FROM note_chunks WHERE agent = $1 AND doc @@ t.q::tsquery)
			FROM unnest($2::text[]) WITH ORDINALITY AS t(q, i) ORDER BY t.i)`
	// The scope filter is inside the ranking, so that notes of other chats do not take the
	// places of the ones this chat may see: $3 is All, $4 the chat (a private chat's id is
	// its user's).
	queryNoteMatches = `SELECT 0::bigint, c.id, c.len, c.doc::text
		FROM note_chunks c JOIN note_files f ON f.agent = c.agent AND f.kind = c.kind AND f.path = c.path
		WHERE c.agent = $1 AND c.doc @@ $2::tsquery
			AND ($3 OR f.scope = 'global' OR (f.scope = 'chat' AND f.chat_id = $4) OR (f.scope = 'user' AND f.user_id = $4))`
	queryNoteWinners = `SELECT ` + noteFileColumns + `, c.id, c.start_line, c.end_line, c.text, c.hash
		FROM note_chunks c JOIN note_files f ON f.agent = c.agent AND f.kind = c.kind AND f.path = c.path
		WHERE c.id = ANY($1)`
)

var _ mynah.NoteIndex = (*DB)(nil)

// NoteFiles returns every indexed note file of agent.
func (db *DB) NoteFiles(ctx context.Context, agent string) ([]mynah.NoteFile, error) {
	rows, err := db.pool.Query(ctx, queryNoteFiles, agent)
	if err != nil {
		return nil, fail(ctx, err, "note files of %s", agent)
	}
	out, err := scanAll(rows, func(s scanner) (mynah.NoteFile, error) {
		f := mynah.NoteFile{Agent: agent}
		err := scanNoteFile(s, &f)
		return f, err
	})
	if err != nil {
		return nil, fail(ctx, err, "note files of %s", agent)
	}
	return out, nil
}

// PutNote records f and, when its hash changed, replaces its chunks, in one transaction.
func (db *DB) PutNote(ctx context.Context, f mynah.NoteFile, chunks []mynah.NoteChunk) error {
	if f.Kind != mynah.NoteCurated && f.Kind != mynah.NoteEpisodic {
		return fmt.Errorf("postgres: put note %q of %s: unknown kind %q", f.Path, f.Agent, f.Kind)
	}
	if f.Path == "" {
		return fmt.Errorf("postgres: put note of %s: empty path", f.Agent)
	}
	switch {
	case f.Scope == "":
		f.Scope = mynah.NoteUnscoped
	case f.Scope == mynah.NoteChat && f.Chat == 0, f.Scope == mynah.NoteUser && f.User == 0:
		return fmt.Errorf("postgres: put note %q of %s: scope %q without its chat or user", f.Path, f.Agent, f.Scope)
	case f.Scope != mynah.NoteGlobal && f.Scope != mynah.NoteChat && f.Scope != mynah.NoteUser && f.Scope != mynah.NoteUnscoped:
		return fmt.Errorf("postgres: put note %q of %s: unknown scope %q", f.Path, f.Agent, f.Scope)
	}
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var old string
		err := tx.QueryRow(ctx, queryNoteHash, f.Agent, string(f.Kind), f.Path).Scan(&old)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		same := err == nil && old == f.Hash
		if _, err := tx.Exec(ctx, upsertNoteFile, f.Agent, string(f.Kind), f.Path, f.Hash, f.Size, f.ModTime.UnixNano(),
			string(f.Scope), int64(f.Chat), int64(f.User)); err != nil {
			return err
		}
		if same {
			return nil
		}
		if _, err := tx.Exec(ctx, deleteNoteChunks, f.Agent, string(f.Kind), f.Path); err != nil {
			return err
		}
		for _, c := range chunks {
			doc, n := buildDoc(docPart{c.Text, bodyPart})
			if _, err := tx.Exec(ctx, insertNoteChunk, f.Agent, string(f.Kind), f.Path, c.StartLine, c.EndLine, c.Text, c.Hash, doc, n); err != nil {
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

// RemoveNote forgets a note file and its chunks.
func (db *DB) RemoveNote(ctx context.Context, agent string, kind mynah.NoteKind, path string) error {
	if _, err := db.pool.Exec(ctx, deleteNoteFile, agent, string(kind), path); err != nil {
		return fail(ctx, err, "remove note %s %q of %s", kind, path, agent)
	}
	return nil
}

// SearchNotes returns the best chunks of q.Agent's notes for q.Terms, by BM25 over the
// agent's chunks, among those q.Chat may see (all with q.All).
func (db *DB) SearchNotes(ctx context.Context, q mynah.NoteQuery) ([]mynah.NoteHit, error) {
	terms := queryTerms(q.Terms)
	if len(terms) == 0 || q.Limit <= 0 {
		return nil, nil
	}
	queries := make([]string, len(terms))
	for i, t := range terms {
		queries[i] = tsquery([]queryTerm{t}, []string{bodyPart})
	}
	var docs, tokens int64
	var counts []int64
	if err := db.pool.QueryRow(ctx, queryNoteStats, q.Agent, queries).Scan(&docs, &tokens, &counts); err != nil {
		return nil, fail(ctx, err, "search notes of %s", q.Agent)
	}
	if docs == 0 {
		return nil, nil
	}
	rows, err := db.pool.Query(ctx, queryNoteMatches, q.Agent, tsquery(terms, []string{bodyPart}), q.All, int64(q.Chat))
	if err != nil {
		return nil, fail(ctx, err, "search notes of %s", q.Agent)
	}
	scored, err := scoreRows(rows, terms, lexemes(terms, []string{bodyPart}), newBM25(counts, docs, tokens, map[string]float64{bodyPart: 1}))
	if err != nil {
		return nil, fail(ctx, err, "search notes of %s", q.Agent)
	}
	if len(scored) > q.Limit {
		scored = scored[:q.Limit]
	}
	if len(scored) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(scored))
	for i, e := range scored {
		ids[i] = e.id
	}
	rows, err = db.pool.Query(ctx, queryNoteWinners, ids)
	if err != nil {
		return nil, fail(ctx, err, "search notes of %s", q.Agent)
	}
	type chunkHit struct {
		id  int64
		hit mynah.NoteHit
	}
	found, err := scanAll(rows, func(s scanner) (chunkHit, error) {
		c := chunkHit{hit: mynah.NoteHit{File: mynah.NoteFile{Agent: q.Agent}}}
		err := scanNoteFile(s, &c.hit.File, &c.id, &c.hit.Chunk.StartLine, &c.hit.Chunk.EndLine, &c.hit.Chunk.Text, &c.hit.Chunk.Hash)
		return c, err
	})
	if err != nil {
		return nil, fail(ctx, err, "search notes of %s", q.Agent)
	}
	byID := make(map[int64]mynah.NoteHit, len(found))
	for _, c := range found {
		byID[c.id] = c.hit
	}
	hits := make([]mynah.NoteHit, 0, len(scored))
	for _, e := range scored {
		if h, ok := byID[e.id]; ok {
			h.Score = e.score
			hits = append(hits, h)
		}
	}
	return hits, nil
}

// scanNoteFile reads noteFileColumns into f, then the rest of the row into more.
func scanNoteFile(s scanner, f *mynah.NoteFile, more ...any) error {
	var mtime, chat, user int64
	var kind, scope string
	if err := s.Scan(append([]any{&kind, &f.Path, &f.Hash, &f.Size, &mtime, &scope, &chat, &user}, more...)...); err != nil {
		return err
	}
	f.Kind, f.Scope = mynah.NoteKind(kind), mynah.NoteScope(scope)
	f.ModTime, f.Chat, f.User = time.Unix(0, mtime), mynah.ChatID(chat), mynah.UserID(user)
	return nil
}
