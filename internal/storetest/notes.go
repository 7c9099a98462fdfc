package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mynah-ai/mynah"
)

func noteFile(agent string, kind mynah.NoteKind, path, hash string) mynah.NoteFile {
	return mynah.NoteFile{Agent: agent, Kind: kind, Path: path, Hash: hash, Size: 100, ModTime: time.Unix(1700000000, 123456789)}
}

func chunk(start, end int, text string) mynah.NoteChunk {
	return mynah.NoteChunk{StartLine: start, EndLine: end, Text: text, Hash: text}
}

func searchNotes(t *testing.T, s mynah.NoteIndex, agent string, terms ...string) []mynah.NoteHit {
	t.Helper()
	hits, err := s.SearchNotes(t.Context(), mynah.NoteQuery{Agent: agent, Terms: terms, Limit: 10})
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
	if hits := searchNotes(t, s, "a", "томатов"); len(hits) != 1 || hits[0].File.Kind != mynah.NoteEpisodic {
		t.Errorf("search in Cyrillic: %+v", hits)
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
}
