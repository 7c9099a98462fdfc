package memory_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tool"
)

// openStore opens a new SQLite store in a temporary directory, closed when tb ends.
func openStore(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "mynah.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// lines returns n lines "prefix i word word …" of about words words each.
func lines(prefix string, n, words int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s %d %s", prefix, i+1, strings.Repeat("lorem ", words))
	}
	return out
}

func TestChunkNoteLinesAndOverlap(t *testing.T) {
	text := strings.Join(lines("line", 200, 20), "\n") + "\n"
	chunks := memory.ChunkNote(text, 400, 80)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks of a 200-line note, want several", len(chunks))
	}
	all := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, c := range chunks {
		// A chunk is exactly its lines.
		if got, want := c.Text, strings.Join(all[c.StartLine-1:c.EndLine], "\n"); got != want {
			t.Errorf("chunk %d (lines %d-%d) text is not its lines", i, c.StartLine, c.EndLine)
		}
		if i == 0 {
			if c.StartLine != 1 {
				t.Errorf("first chunk starts at line %d", c.StartLine)
			}
			continue
		}
		prev := chunks[i-1]
		if c.StartLine > prev.EndLine || c.StartLine <= prev.StartLine {
			t.Errorf("chunk %d lines %d-%d do not overlap chunk %d lines %d-%d", i, c.StartLine, c.EndLine, i-1, prev.StartLine, prev.EndLine)
		}
		overlap := strings.Join(all[c.StartLine-1:prev.EndLine], "\n")
		if n := len(strings.Fields(overlap)); n < 30 || n > 100 {
			t.Errorf("chunk %d overlaps by %d words, want about 80 tokens", i, n)
		}
	}
	if last := chunks[len(chunks)-1]; last.EndLine != 200 {
		t.Errorf("last chunk ends at line %d, want 200", last.EndLine)
	}
}

func TestChunkNotePrefersHeadings(t *testing.T) {
	var b []string
	b = append(b, "# Birds")
	b = append(b, lines("owls", 12, 20)...)
	b = append(b, "## Sparrows")
	b = append(b, lines("sparrows", 12, 20)...)
	chunks := memory.ChunkNote(strings.Join(b, "\n"), 400, 80)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
	// The first chunk ends before the heading instead of cutting into its section.
	if chunks[0].EndLine != 13 {
		t.Errorf("first chunk ends at line %d, want 13 (before ## Sparrows at 14)", chunks[0].EndLine)
	}
	found := false
	for _, c := range chunks {
		found = found || strings.HasPrefix(c.Text, "## Sparrows") || strings.Contains(c.Text, "\n## Sparrows")
	}
	if !found {
		t.Error("no chunk holds the heading")
	}
}

func TestChunkNoteHugeLineAndCyrillic(t *testing.T) {
	huge := strings.Repeat("слово ", 3000) // one line of thousands of tokens
	text := "# Заметки\n" + huge + "\nпоследняя строка про сад\n"
	chunks := memory.ChunkNote(text, 400, 80)
	if len(chunks) < 5 {
		t.Fatalf("%d chunks for a line of ~3000 words, want it cut", len(chunks))
	}
	for _, c := range chunks {
		if c.StartLine < 1 || c.EndLine > 3 || c.StartLine > c.EndLine {
			t.Errorf("chunk lines %d-%d outside 1-3", c.StartLine, c.EndLine)
		}
		if !utf8.ValidString(c.Text) {
			t.Errorf("chunk cuts a character in two: %q…", c.Text[:20])
		}
	}
	last := chunks[len(chunks)-1]
	if !strings.Contains(last.Text, "последняя строка про сад") || last.EndLine != 3 {
		t.Errorf("last chunk lines %d-%d %q…, want line 3", last.StartLine, last.EndLine, last.Text[:40])
	}
	if got := memory.ChunkNote("\n\n   \n", 400, 80); len(got) != 0 {
		t.Errorf("blank note gave %d chunks", len(got))
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func search(t *testing.T, db *sqlite.DB, terms ...string) []string {
	t.Helper()
	hits, err := db.SearchNotes(t.Context(), mynah.NoteQuery{Agent: "Mynah", Terms: terms, Limit: 10, All: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, memory.NoteSourceName(h.File, h.Chunk))
	}
	return out
}

func TestNotesSync(t *testing.T) {
	db := openStore(t)
	cfg, data := t.TempDir(), t.TempDir()
	write(t, filepath.Join(cfg, "birds", "owls.md"), "# Owls\nThe barn owl hunts voles.\n")
	write(t, filepath.Join(cfg, "readme.txt"), "voles are not a note\n")
	write(t, filepath.Join(data, "garden.md"), "# Garden\nTomatoes need water.\n")
	n := memory.NewNotes("Mynah", cfg, data, db)

	st, err := n.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st, memory.SyncStats{Hashed: 2, Indexed: 2}); diff != "" {
		t.Errorf("first sync (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(search(t, db, "voles"), []string{"memory/birds/owls.md:1-2"}); diff != "" {
		t.Errorf("voles (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(search(t, db, "tomato"), []string{"notes/garden.md:1-2"}); diff != "" {
		t.Errorf("tomato (-got +want):\n%s", diff)
	}

	// Nothing changed: nothing is read again.
	if st, err := n.Sync(t.Context()); err != nil || st != (memory.SyncStats{}) {
		t.Errorf("second sync = %+v, %v; want nothing done", st, err)
	}

	// An edit, a touch without a change, a removal.
	write(t, filepath.Join(cfg, "birds", "owls.md"), "# Owls\nThe barn owl hunts mice.\n")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(data, "garden.md"), later, later); err != nil {
		t.Fatal(err)
	}
	st, err = n.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st, memory.SyncStats{Hashed: 2, Indexed: 1}); diff != "" {
		t.Errorf("sync after an edit and a touch (-got +want):\n%s", diff)
	}
	if got := search(t, db, "voles"); len(got) != 0 {
		t.Errorf("the old text is still found: %v", got)
	}
	if got := search(t, db, "mice"); len(got) != 1 {
		t.Errorf("the new text: %v", got)
	}
	if err := os.Remove(filepath.Join(data, "garden.md")); err != nil {
		t.Fatal(err)
	}
	if st, err := n.Sync(t.Context()); err != nil || st.Removed != 1 {
		t.Errorf("sync after a removal = %+v, %v", st, err)
	}
	if got := search(t, db, "tomato"); len(got) != 0 {
		t.Errorf("a removed note is still found: %v", got)
	}
}

func TestNotesSyncMissingFolders(t *testing.T) {
	db := openStore(t)
	n := memory.NewNotes("Mynah", filepath.Join(t.TempDir(), "none"), filepath.Join(t.TempDir(), "none"), db)
	if st, err := n.Sync(t.Context()); err != nil || st != (memory.SyncStats{}) {
		t.Errorf("Sync = %+v, %v; want nothing and no error", st, err)
	}
}

func call(t *testing.T, tl tool.Tool, args string) (string, error) {
	t.Helper()
	return tl.Run(t.Context(), tool.Call{Agent: "Mynah", Chat: mynah.Chat{ID: 7}, Args: json.RawMessage(args),
		Now: time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)})
}

func TestNoteFileName(t *testing.T) {
	for topic, want := range map[string]string{
		"Birds":                  "birds.md",
		"../../etc/passwd":       "etc-passwd.md",
		"  Trip to Kyiv, 2026! ": "trip-to-kyiv-2026.md",
		"Сад и огород":           "сад-и-огород.md",
		"a/b\\c.md":              "a-b-c-md.md",
		"...":                    "",
		"":                       "",
	} {
		if got := memory.NoteFileName(topic); got != want {
			t.Errorf("NoteFileName(%q) = %q, want %q", topic, got, want)
		}
	}
	if got := memory.NoteFileName(strings.Repeat("x", 500)); len(got) > 70 {
		t.Errorf("a long topic gave a %d-byte name", len(got))
	}
}

func TestNoteToolAppends(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes", "Mynah")
	nt := memory.NewNoteTool(dir, 0)
	out, err := call(t, nt, `{"topic":"../Garden plans","text":"Plant tomatoes in May."}`)
	if err != nil || out != "Noted in notes/chats/7/garden-plans.md." {
		t.Fatalf("note = %q, %v", out, err)
	}
	if _, err := call(t, nt, `{"topic":"garden PLANS","text":"Buy a hose."}`); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "chats", "7", "garden-plans.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# ../Garden plans\n\n## 2026-03-04 05:06 UTC\n\nPlant tomatoes in May.\n\n## 2026-03-04 05:06 UTC\n\nBuy a hose.\n"
	if diff := cmp.Diff(string(got), want); diff != "" {
		t.Errorf("note file (-got +want):\n%s", diff)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("files beside the notes folder: %v", entries)
	}
	for _, bad := range []string{`{"topic":"!!","text":"x"}`, `{"topic":"t","text":"  "}`, `{"topic":"t"`,
		`{"topic":"t","text":"` + strings.Repeat("x", 5000) + `"}`} {
		if _, err := call(t, nt, bad); err == nil {
			t.Errorf("note %.40s… succeeded", bad)
		}
	}
}

func TestSearchFindsNotesWithSource(t *testing.T) {
	db := openStore(t)
	cfg, data := t.TempDir(), t.TempDir()
	write(t, filepath.Join(cfg, "birds.md"), "# Birds\n\nThe kestrel hovers over the meadow.\n")
	chat := mynah.Chat{ID: 7, Type: mynah.ChatPrivate}
	for i, text := range []string{"I saw a kestrel today", "what a lovely day"} {
		m := &mynah.Message{Chat: chat, ID: mynah.MessageID(i + 1), Sender: mynah.User{ID: 1, FirstName: "Ann"},
			Time: time.Unix(1700000000+int64(i), 0), Text: text}
		if _, err := db.Accept(t.Context(), "Mynah", int64(i+1), mynah.Intake{Chat: chat, Message: m}); err != nil {
			t.Fatal(err)
		}
	}
	notes := memory.NewNotes("Mynah", cfg, data, db)
	s := memory.NewSearcher(db, memory.Options{}, nil).WithNotes(notes)

	// A note written after the searcher was made is found: the search syncs first.
	if _, err := call(t, memory.NewNoteTool(data, 0), `{"topic":"sightings","text":"Kestrel nest under the bridge."}`); err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(t.Context(), memory.Query{Agent: "Mynah", Chat: 7, Text: "kestrel", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]memory.Kind{}
	for _, r := range res {
		kinds[r.Source] = r.Kind
		if r.Score <= 0 {
			t.Errorf("%s scored %v", r.Source, r.Score)
		}
	}
	want := map[string]memory.Kind{"chat 7 #1": memory.KindMessage, "memory/birds.md:1-3": memory.KindNote, "notes/chats/7/sightings.md:1-5": memory.KindNote}
	if diff := cmp.Diff(kinds, want); diff != "" {
		t.Errorf("results (-got +want):\n%s", diff)
	}

	out, err := call(t, memory.NewSearchTool(s), `{"query":"kestrel"}`)
	if err != nil || !strings.Contains(out, "[note memory/birds.md:1-3]") || !strings.Contains(out, "I saw a kestrel") {
		t.Errorf("memory_search = %q, %v", out, err)
	}
	get := memory.NewGetTool(db).WithNotes(notes)
	out, err = call(t, get, `{"path":"memory/birds.md","from":3,"to":3}`)
	if err != nil || out != "3: The kestrel hovers over the meadow." {
		t.Errorf("memory_get of a note = %q, %v", out, err)
	}
	for _, bad := range []string{"memory/../../etc/passwd.md", "/etc/passwd", "memory/none.md", "notes/../x.md"} {
		if out, err := call(t, get, `{"path":"`+bad+`","from":1}`); err == nil {
			t.Errorf("memory_get %q = %q, want an error", bad, out)
		}
	}
	if out, err := call(t, get, `{"message_id":1}`); err != nil || !strings.Contains(out, "kestrel") {
		t.Errorf("memory_get of a message = %q, %v", out, err)
	}
}

// BenchmarkIndexNotes chunks and indexes 10,000 chunks' worth of notes (100 files of
// ~100 chunks each) into an empty index, as the first sync of a big notes folder does.
func BenchmarkIndexNotes(b *testing.B) {
	para := "The barn owl hunts voles and mice over the meadow at dusk, quartering low and silent. "
	var files []string
	for f := range 100 {
		var sb strings.Builder
		fmt.Fprintf(&sb, "# Notes %d\n\n", f)
		for range 320 {
			sb.WriteString(strings.Repeat(para, 4) + "\n\n")
		}
		files = append(files, sb.String())
	}
	for b.Loop() {
		b.StopTimer()
		db := openStore(b)
		b.StartTimer()
		chunks := 0
		for i, text := range files {
			cs := memory.ChunkNote(text, memory.ChunkTokens, memory.ChunkOverlap)
			chunks += len(cs)
			if err := db.PutNote(b.Context(), mynah.NoteFile{Agent: "a", Kind: mynah.NoteCurated, Path: fmt.Sprintf("%d.md", i), Hash: "h"}, cs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(chunks), "chunks/op")
	}
}
