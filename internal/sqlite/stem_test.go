package sqlite

import (
	"bytes"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah"
)

// TestStemmingMigration: messages and notes indexed before stemming (schema 14) are
// indexed again at the upgrade, with progress, so that their other word forms find them;
// edits before the re-index reaches them are indexed as edited.
func TestStemmingMigration(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "mynah.db")
	raw := openBefore(t, path, 15)
	texts := []string{"Оля купила машину", "Ми жили у Львові", "an ordinary English line about cars"}
	for _, q := range []string{
		`INSERT INTO chats (agent, chat_id, type, title, username, is_forum, updated_at) VALUES ('a', -100, 'supergroup', 'g', '', 0, 0)`,
		`INSERT INTO note_files (agent, kind, path, hash, size, mtime, scope) VALUES ('a', 'curated', 'cars.md', 'h', 1, 0, 'global')`,
		`INSERT INTO search_agents (agent) VALUES ('a')`,
		`INSERT INTO note_chunks (id, agent, kind, path, start_line, end_line, text, hash) VALUES ((SELECT agent_no FROM search_agents WHERE agent = 'a') << 40, 'a', 'curated', 'cars.md', 1, 1, 'Машину ремонтують у Львові', 'h')`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for i, text := range texts {
		if _, err := raw.ExecContext(ctx, `INSERT INTO messages (agent, chat_id, message_id, thread_id, sender_id, sender_first_name,
			sender_last_name, sender_username, sender_is_bot, time, text, outgoing, stored_at) VALUES ('a', -100, ?, 0, 1, 'Оля', '', '', 0, 0, ?, 0, 0)`,
			i+1, text); err != nil {
			t.Fatal(err)
		}
	}
	// Enough history for the re-index to be long and report its progress.
	if _, err := raw.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM n WHERE i < 100 + ?)
		INSERT INTO messages (agent, chat_id, message_id, thread_id, sender_id, sender_first_name, sender_last_name,
			sender_username, sender_is_bot, time, text, outgoing, stored_at)
		SELECT 'a', -100, i, 0, 1, 'Оля', '', '', 0, 0, 'повідомлення ' || i, 0, 0 FROM n`, catchUpLog); err != nil {
		t.Fatal(err)
	}
	// The old indexer's batch: what schema 14 held after serve had run.
	if _, err := raw.ExecContext(ctx, `INSERT INTO search_chats (scope, agent, chat_id) VALUES (((SELECT agent_no FROM search_agents WHERE agent = 'a') << 22), 'a', -100)`); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `INSERT INTO message_search (rowid, body, context, previous) SELECT key, body, context, previous FROM message_search_docs`); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `UPDATE search_progress SET last_rowid = (SELECT max(rowid) FROM messages)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// An edit before the re-index: the batch indexes the edited text.
	if _, err := db.write.ExecContext(ctx, `UPDATE messages SET text = 'Оля продала машину' WHERE message_id = 1`); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	runIndexerOnce(t, db, slog.New(slog.NewTextHandler(&log, nil)))
	if want := fmt.Sprintf("done=%d", catchUpLog+4); !strings.Contains(log.String(), "indexing messages for search") || !strings.Contains(log.String(), want) {
		t.Errorf("the re-index logged %q, want its start and its end (%s)", log.String(), want)
	}
	for term, want := range map[string][]mynah.MessageID{"машина": {1}, "продала": {1}, "купила": nil, "Львів": {2}, "car": {3}} {
		hits, err := db.SearchHistory(ctx, mynah.SearchQuery{Agent: "a", Chat: -100, Terms: []string{term}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []mynah.MessageID
		for _, h := range hits {
			got = append(got, h.Message.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("after the upgrade %q finds %v, want %v", term, got, want)
		}
	}
	notes, err := db.SearchNotes(ctx, mynah.NoteQuery{Agent: "a", Terms: []string{"машина", "Львів"}, Limit: 5, All: true})
	if err != nil || len(notes) != 1 {
		t.Errorf("after the upgrade the note is found %d times (%v), want once", len(notes), err)
	}
}

// TestCompoundsMigration: messages and notes indexed before compound words were split
// (schema 19) are indexed again at the upgrade, so that "gym" finds "PureGym".
func TestCompoundsMigration(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "mynah.db")
	raw := openBefore(t, path, 20)
	const text, note = "Signed up at PureGym today", "My AirPods need a new case"
	for _, q := range []string{
		`INSERT INTO chats (agent, chat_id, type, title, username, is_forum, updated_at) VALUES ('a', 7, 'private', '', '', 0, 0)`,
		`INSERT INTO search_agents (agent) VALUES ('a')`,
		`INSERT INTO search_chats (scope, agent, chat_id) VALUES ((SELECT agent_no FROM search_agents WHERE agent = 'a') << 22, 'a', 7)`,
		`INSERT INTO messages (agent, chat_id, message_id, thread_id, sender_id, sender_first_name, sender_last_name,
			sender_username, sender_is_bot, time, text, outgoing, stored_at) VALUES ('a', 7, 1, 0, 7, 'Ann', '', '', 0, 0, '` + text + `', 0, 0)`,
		`INSERT INTO note_files (agent, kind, path, hash, size, mtime, scope) VALUES ('a', 'curated', 'gear.md', 'h', 1, 0, 'global')`,
		`INSERT INTO note_chunks (id, agent, kind, path, start_line, end_line, text, hash) VALUES ((SELECT agent_no FROM search_agents WHERE agent = 'a') << 40, 'a', 'curated', 'gear.md', 1, 1, '` + note + `', 'h')`,
		// What schema 19 held: each text as typed, its compounds one word.
		`INSERT INTO note_search (note_search) VALUES ('delete-all')`,
		`INSERT INTO note_search (rowid, text) SELECT id, text FROM note_chunks`,
		`INSERT INTO message_search (rowid, body, context, previous) SELECT key, '` + text + `', 'Ann', '' FROM message_search_docs`,
		`UPDATE search_progress SET last_rowid = (SELECT max(rowid) FROM messages)`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runIndexerOnce(t, db, slog.New(slog.DiscardHandler))
	for _, term := range []string{"gym", "PureGym"} {
		hits, err := db.SearchHistory(ctx, mynah.SearchQuery{Agent: "a", Chat: 7, Terms: []string{term}, Limit: 10})
		if err != nil || len(hits) != 1 || hits[0].Message.ID != 1 {
			t.Errorf("after the upgrade %q finds %d messages (%v), want message 1", term, len(hits), err)
		}
	}
	notes, err := db.SearchNotes(ctx, mynah.NoteQuery{Agent: "a", Terms: []string{"pods"}, Limit: 5, All: true})
	if err != nil || len(notes) != 1 {
		t.Errorf("after the upgrade the note is found by a part of AirPods %d times (%v), want once", len(notes), err)
	}
}

// runIndexerOnce runs the indexer until it has caught up.
func runIndexerOnce(t *testing.T, db *DB, log *slog.Logger) {
	t.Helper()
	if err := db.catchUp(t.Context(), log); err != nil {
		t.Fatal(err)
	}
	if n, err := db.IndexPending(t.Context()); err != nil || n != 0 {
		t.Fatalf("after the catch-up %d messages were waiting (%v)", n, err)
	}
}

// BenchmarkIndexPendingCyrillic is BenchmarkIndexPending with Russian and Ukrainian text:
// what stemming adds to indexing a message.
func BenchmarkIndexPendingCyrillic(b *testing.B) {
	benchIndexPending(b, []mynah.User{{ID: 1, FirstName: "Оля"}, {ID: 2, FirstName: "Дима"}},
		"обычное сообщение %d из болтовни в группе о планах на выходные",
		"звичайне повідомлення %d з балачок у групі про плани на вихідні")
}

// openBefore opens a database file at path with the migrations before version applied,
// as an older mynah left it, without the store.
func openBefore(t *testing.T, path string, version int) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(t.Context(), `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.version >= version {
			break
		}
		if _, err := raw.ExecContext(t.Context(), m.sql); err != nil {
			t.Fatalf("migration %d: %v", m.version, err)
		}
		if _, err := raw.ExecContext(t.Context(), `INSERT INTO schema_migrations VALUES (?, ?, 0)`, m.version, m.name); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}
