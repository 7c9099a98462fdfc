package postgres

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// TestUpgradeRebuildsSearch: a database whose index entries a migration emptied and asked
// to rebuild (0003_search_context) is searchable again once opened: every message has its
// entry again, with the previous part SQLite writes (the message before it, said within
// the hour), and each chat's counts match its entries.
func TestUpgradeRebuildsSearch(t *testing.T) {
	requireServer(t)
	db, dsn := openTemp(t)
	chat := mynah.Chat{ID: -100777, Type: mynah.ChatSupergroup}
	t0 := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	var msgs []mynah.Message
	for i := 1; i <= 1200; i++ { // more than one batch
		at := t0.Add(time.Duration(i) * 10 * time.Minute)
		if i >= 600 {
			at = at.Add(2 * time.Hour) // a new conversation: what was said before is not its context
		}
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(i), Time: at, Sender: mynah.User{ID: 1, FirstName: "Ann"},
			Text: fmt.Sprintf("note %d about the garden", i)})
	}
	msgs[598].Text = "the heron came back to the pond" // message 599
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, q := range []string{`DELETE FROM message_search`, `UPDATE search_chats SET docs = 0, tokens = 0`, `INSERT INTO search_rebuild VALUES (true)`} {
		if _, err := db.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db = reopen(t, db, dsn)
	var entries, docs int64
	var pending bool
	if err := db.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM message_search), (SELECT coalesce(sum(docs), 0)::bigint FROM search_chats),
		EXISTS (SELECT 1 FROM search_rebuild)`).Scan(&entries, &docs, &pending); err != nil {
		t.Fatal(err)
	}
	if entries != 1200 || docs != 1200 || pending {
		t.Errorf("after the upgrade: %d entries, counted %d, rebuild pending %v; want 1200, 1200, false", entries, docs, pending)
	}
	search := func(word string, previous float64) []mynah.MessageID {
		hits, err := db.SearchHistory(ctx, mynah.SearchQuery{Agent: "a", Chat: chat.ID, Terms: []string{word}, PreviousWeight: previous, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		var ids []mynah.MessageID
		for _, h := range hits {
			ids = append(ids, h.Message.ID)
		}
		return ids
	}
	if got := search("heron", 0); len(got) != 1 || got[0] != 599 {
		t.Errorf("search for heron = %v, want [599]", got)
	}
	// Message 600 was said two hours after the heron: the heron is not what it answers.
	if got := search("heron", 1); len(got) != 1 || got[0] != 599 {
		t.Errorf("search for heron, weighing what a message answers = %v, want [599] only", got)
	}
}

// TestUpgradeSplitsCompounds: migration 0004 rebuilds the entries written before compound
// words were split, so that once the store is opened again "gym" finds "PureGym" among
// the messages and "pods" finds "AirPods" among the notes.
func TestUpgradeSplitsCompounds(t *testing.T) {
	requireServer(t)
	db, dsn := openTemp(t)
	ctx := t.Context()
	chat := mynah.Chat{ID: 7, Type: mynah.ChatPrivate}
	msg := mynah.Message{ID: 1, Time: time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC), Sender: mynah.User{ID: 7, FirstName: "Ann"},
		Text: "Signed up at PureGym today"}
	if _, err := db.ImportMessages(ctx, "a", chat, []mynah.Message{msg}); err != nil {
		t.Fatal(err)
	}
	f := mynah.NoteFile{Agent: "a", Kind: mynah.NoteCurated, Path: "gear.md", Hash: "h", Size: 1, ModTime: time.Unix(1, 0), Scope: mynah.NoteGlobal}
	if err := db.PutNote(ctx, f, []mynah.NoteChunk{{StartLine: 1, EndLine: 1, Text: "My AirPods need a new case", Hash: "c"}}); err != nil {
		t.Fatal(err)
	}
	// What schema 3 held: entries without the parts of compound words.
	for _, q := range []string{
		`UPDATE message_search SET doc = to_tsvector('simple', 'signed up at puregym today')`,
		`UPDATE note_chunks SET doc = to_tsvector('simple', text)`,
	} {
		if _, err := db.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ms, func(m migration) bool { return m.name == "compounds" })
	if i < 0 {
		t.Fatal("no migration compounds")
	}
	if _, err := db.pool.Exec(ctx, ms[i].sql); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, dsn)
	hits, err := db.SearchHistory(ctx, mynah.SearchQuery{Agent: "a", Chat: chat.ID, Terms: []string{"gym"}, Limit: 5})
	if err != nil || len(hits) != 1 || hits[0].Message.ID != 1 {
		t.Errorf("after the upgrade gym finds %d messages (%v), want message 1", len(hits), err)
	}
	notes, err := db.SearchNotes(ctx, mynah.NoteQuery{Agent: "a", Terms: []string{"pods"}, Limit: 5, All: true})
	if err != nil || len(notes) != 1 {
		t.Errorf("after the upgrade pods finds %d notes (%v), want the note", len(notes), err)
	}
}
