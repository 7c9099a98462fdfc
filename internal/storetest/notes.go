package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mynah-ai/mynah"
)

// noteFile is a global note: shown in every chat.
func noteFile(agent string, kind mynah.NoteKind, path, hash string) mynah.NoteFile {
	return mynah.NoteFile{Agent: agent, Kind: kind, Path: path, Hash: hash, Size: 100, ModTime: time.Unix(1700000000, 123456789),
		Scope: mynah.NoteGlobal}
}

func chunk(start, end int, text string) mynah.NoteChunk {
	return mynah.NoteChunk{StartLine: start, EndLine: end, Text: text, Hash: text}
}

// searchNotes searches every note of agent, as the operator does.
func searchNotes(t *testing.T, s mynah.NoteIndex, agent string, terms ...string) []mynah.NoteHit {
	t.Helper()
	hits, err := s.SearchNotes(t.Context(), mynah.NoteQuery{Agent: agent, Terms: terms, Limit: 10, All: true})
	if err != nil {
		t.Fatalf("SearchNotes(%v): %v", terms, err)
	}
	return hits
}

func put(t *testing.T, s mynah.NoteIndex, f mynah.NoteFile, chunks ...mynah.NoteChunk) {
	t.Helper()
	if err := s.PutNote(t.Context(), f, chunks); err != nil {
		t.Fatalf("PutNote(%s): %v", f.Path, err)
	}
}

func testNotesSearchable(t *testing.T, b Backend) {
	s := b.Open(t)
	f := noteFile("a", mynah.NoteCurated, "birds/owls.md", "h1")
	put(t, s, f,
		chunk(1, 3, "# Owls\nThe barn owl hunts at night.\nIt nests in churches."),
		chunk(3, 5, "It nests in churches.\nSparrows are everywhere."))
	put(t, s, noteFile("a", mynah.NoteEpisodic, "garden.md", "h2"), chunk(1, 1, "Сад: полив томатов по вторникам"))

	hits := searchNotes(t, s, "a", "owls", "hunting")
	if len(hits) != 1 {
		t.Fatalf("search owls/hunting: %d hits, want 1: %+v", len(hits), hits)
	}
	want := mynah.NoteHit{File: f, Chunk: chunk(1, 3, "# Owls\nThe barn owl hunts at night.\nIt nests in churches.")}
	if diff := cmp.Diff(hits[0], want, cmpopts.IgnoreFields(mynah.NoteHit{}, "Score"), cmpopts.EquateApproxTime(0)); diff != "" {
		t.Errorf("hit (-got +want):\n%s", diff)
	}
	if hits[0].Score <= 0 {
		t.Errorf("score %v, want > 0", hits[0].Score)
	}
	for _, term := range []string{"томатов", "томаты", "вторник"} {
		if hits := searchNotes(t, s, "a", term); len(hits) != 1 || hits[0].File.Kind != mynah.NoteEpisodic {
			t.Errorf("search in Cyrillic for %q: %+v", term, hits)
		}
	}
	if hits := searchNotes(t, s, "a", `churches" OR "x`, "nests"); len(hits) != 2 {
		t.Errorf("search with quotes found %d chunks, want the 2 with nests", len(hits))
	}
	if hits := searchNotes(t, s, "a"); len(hits) != 0 {
		t.Errorf("no terms found %d", len(hits))
	}
	files, err := s.NoteFiles(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(files, func(a, b mynah.NoteFile) int { return cmpString(a.Path, b.Path) })
	if diff := cmp.Diff(files, []mynah.NoteFile{f, noteFile("a", mynah.NoteEpisodic, "garden.md", "h2")}, cmpopts.EquateApproxTime(0)); diff != "" {
		t.Errorf("NoteFiles (-got +want):\n%s", diff)
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func testNotesReplaced(t *testing.T, b Backend) {
	s := b.Open(t)
	put(t, s, noteFile("a", mynah.NoteCurated, "n.md", "h1"), chunk(1, 2, "kestrel hovering"), chunk(3, 4, "kestrel again"))
	put(t, s, noteFile("a", mynah.NoteCurated, "n.md", "h2"), chunk(1, 1, "heron fishing"))
	if hits := searchNotes(t, s, "a", "kestrel"); len(hits) != 0 {
		t.Errorf("the old chunks are still found: %+v", hits)
	}
	if hits := searchNotes(t, s, "a", "heron"); len(hits) != 1 || hits[0].File.Hash != "h2" {
		t.Errorf("the new chunk: %+v", hits)
	}
}

func testNotesSameHash(t *testing.T, b Backend) {
	s := b.Open(t)
	f := noteFile("a", mynah.NoteCurated, "n.md", "h1")
	put(t, s, f, chunk(1, 1, "kingfisher"))
	f.ModTime = f.ModTime.Add(time.Hour)
	f.Size = 7
	put(t, s, f)
	hits := searchNotes(t, s, "a", "kingfisher")
	if len(hits) != 1 {
		t.Fatalf("the chunk of an unchanged file is gone: %+v", hits)
	}
	if !hits[0].File.ModTime.Equal(f.ModTime) || hits[0].File.Size != 7 {
		t.Errorf("file = %+v, want the new mtime and size", hits[0].File)
	}
}

func testNotesRemoved(t *testing.T, b Backend) {
	s := b.Open(t)
	put(t, s, noteFile("a", mynah.NoteCurated, "n.md", "h1"), chunk(1, 1, "magpie"))
	put(t, s, noteFile("a", mynah.NoteEpisodic, "n.md", "h1"), chunk(1, 1, "magpie too"))
	if err := s.RemoveNote(t.Context(), "a", mynah.NoteCurated, "n.md"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveNote(t.Context(), "a", mynah.NoteCurated, "never.md"); err != nil {
		t.Errorf("removing an unknown note: %v", err)
	}
	hits := searchNotes(t, s, "a", "magpie")
	if len(hits) != 1 || hits[0].File.Kind != mynah.NoteEpisodic {
		t.Errorf("after removing the curated note: %+v", hits)
	}
	files, err := s.NoteFiles(t.Context(), "a")
	if err != nil || len(files) != 1 {
		t.Errorf("NoteFiles = %+v, %v; want the episodic one", files, err)
	}
}

func testNotesScoped(t *testing.T, b Backend) {
	s := b.Open(t)
	put(t, s, noteFile("a", mynah.NoteCurated, "n.md", "h1"), chunk(1, 1, "robin"))
	put(t, s, noteFile("b", mynah.NoteCurated, "n.md", "h1"), chunk(1, 1, "robin of b"))
	if hits := searchNotes(t, s, "a", "robin"); len(hits) != 1 || hits[0].File.Agent != "a" {
		t.Errorf("agent a sees %+v", hits)
	}
	if hits := searchNotes(t, s, "nobody", "robin"); len(hits) != 0 {
		t.Errorf("an unknown agent sees %+v", hits)
	}
}

func testNotesBadInput(t *testing.T, b Backend) {
	s := b.Open(t)
	if err := s.PutNote(t.Context(), noteFile("a", "diary", "n.md", "h"), nil); err == nil {
		t.Error("PutNote with an unknown kind succeeded")
	}
	if err := s.PutNote(t.Context(), noteFile("a", mynah.NoteCurated, "", "h"), nil); err == nil {
		t.Error("PutNote with an empty path succeeded")
	}
	for _, f := range []mynah.NoteFile{
		{Agent: "a", Kind: mynah.NoteCurated, Path: "n.md", Hash: "h", Scope: "everyone"},
		{Agent: "a", Kind: mynah.NoteCurated, Path: "n.md", Hash: "h", Scope: mynah.NoteChat},
		{Agent: "a", Kind: mynah.NoteCurated, Path: "n.md", Hash: "h", Scope: mynah.NoteUser},
	} {
		if err := s.PutNote(t.Context(), f, nil); err == nil {
			t.Errorf("PutNote with scope %q, chat %d, user %d succeeded", f.Scope, f.Chat, f.User)
		}
	}
}

// testNotesVisible: a chat's search finds global notes, its own and, in a private chat,
// its user's; never another chat's, another user's or an unscoped note, however well
// those match. The operator's search (All) finds them all.
func testNotesVisible(t *testing.T, b Backend) {
	s := b.Open(t)
	const dm = mynah.ChatID(42) // alice's private chat
	file := func(path string, scope mynah.NoteScope, chat mynah.ChatID, user mynah.UserID) mynah.NoteFile {
		f := noteFile("a", mynah.NoteEpisodic, path, "h")
		f.Scope, f.Chat, f.User = scope, chat, user
		return f
	}
	files := map[string]mynah.NoteFile{
		"global":   file("g.md", mynah.NoteGlobal, 0, 0),
		"group":    file("chats/-100/n.md", mynah.NoteChat, -100, 0),
		"dm":       file("chats/42/n.md", mynah.NoteChat, dm, 0),
		"otherDM":  file("chats/7/n.md", mynah.NoteChat, 7, 0),
		"alice":    file("users/42.md", mynah.NoteUser, 0, 42),
		"carol":    file("users/7.md", mynah.NoteUser, 0, 7),
		"unscoped": file("old.md", "", 0, 0),
	}
	for name, f := range files {
		// The others' notes match better (the term twice), so they would win a ranking
		// that filtered after the limit.
		text := "door code"
		if name != "global" && name != "dm" && name != "alice" && name != "group" {
			text = "door code door code"
		}
		put(t, s, f, chunk(1, 1, text+" of "+name))
	}
	search := func(q mynah.NoteQuery) []string {
		t.Helper()
		q.Agent, q.Terms = "a", []string{"door", "code"}
		hits, err := s.SearchNotes(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.File.Path)
		}
		slices.Sort(got)
		return got
	}
	for _, tc := range []struct {
		q    mynah.NoteQuery
		want []string
	}{
		{mynah.NoteQuery{Chat: dm, Limit: 3}, []string{"chats/42/n.md", "g.md", "users/42.md"}},
		{mynah.NoteQuery{Chat: -100, Limit: 2}, []string{"chats/-100/n.md", "g.md"}},
		{mynah.NoteQuery{Chat: 0, Limit: 10}, []string{"g.md"}},
		{mynah.NoteQuery{All: true, Limit: 10}, []string{"chats/-100/n.md", "chats/42/n.md", "chats/7/n.md", "g.md", "old.md", "users/42.md", "users/7.md"}},
	} {
		if diff := cmp.Diff(search(tc.q), tc.want); diff != "" {
			t.Errorf("search %+v (-got +want):\n%s", tc.q, diff)
		}
	}
	// The index keeps each file's scope.
	got, err := s.NoteFiles(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	unscoped := files["unscoped"]
	unscoped.Scope = mynah.NoteUnscoped
	want := []mynah.NoteFile{files["global"], files["group"], files["dm"], files["otherDM"], files["alice"], files["carol"], unscoped}
	byPath := func(a, b mynah.NoteFile) int { return cmpString(a.Path, b.Path) }
	slices.SortFunc(got, byPath)
	slices.SortFunc(want, byPath)
	if diff := cmp.Diff(got, want, cmpopts.EquateApproxTime(0)); diff != "" {
		t.Errorf("NoteFiles (-got +want):\n%s", diff)
	}
	// A scope that changes (a file moved by rule, not by name) is recorded without new chunks.
	f := files["unscoped"]
	f.Scope = mynah.NoteGlobal
	put(t, s, f)
	if got := search(mynah.NoteQuery{Chat: -100, Limit: 10}); !slices.Contains(got, "old.md") {
		t.Errorf("a note made global is not found: %v", got)
	}
}
