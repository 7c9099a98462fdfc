package memory_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
)

func writeNote(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func texts(items []prompt.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Text)
	}
	return out
}

// TestCuratedFollowsTheFolder: notes written, edited and removed by hand show in the very
// next call, without a restart; other files are not notes.
func TestCuratedFollowsTheFolder(t *testing.T) {
	dir := t.TempDir()
	c := memory.NewCurated(dir)
	items := func() []prompt.Item {
		t.Helper()
		got, err := c.Items(t.Context(), prompt.Query{})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	writeNote(t, dir, "people.md", "# People\n\nDmitry owns this bot.\n")
	writeNote(t, dir, "b-rules.md", "Never talk about the weather.")
	writeNote(t, dir, "draft.txt", "not a note")
	writeNote(t, dir, ".hidden.md", "an editor's swap file")
	writeNote(t, dir, "empty.md", "  \n")
	if err := os.Mkdir(filepath.Join(dir, "sub.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := items()
	if ids := itemIDs(got); !cmp.Equal(ids, []string{"curated:b-rules.md", "curated:people.md"}) {
		t.Fatalf("ids = %v", ids)
	}
	if want := "Note people.md:\n# People\n\nDmitry owns this bot."; got[1].Text != want {
		t.Errorf("text = %q, want %q", got[1].Text, want)
	}

	// Edited: same size, newer time, still picked up.
	writeNote(t, dir, "people.md", "# People\n\nDmitri owns this bot.\n")
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(dir, "people.md"), later, later); err != nil {
		t.Fatal(err)
	}
	if got := texts(items()); len(got) != 2 || !strings.Contains(got[1], "Dmitri owns") {
		t.Errorf("after an edit: %q", got)
	}
	writeNote(t, dir, "a-new.md", "Added while running.")
	if err := os.Remove(filepath.Join(dir, "b-rules.md")); err != nil {
		t.Fatal(err)
	}
	if ids := itemIDs(items()); !cmp.Equal(ids, []string{"curated:a-new.md", "curated:people.md"}) {
		t.Errorf("after adding and removing: %v", ids)
	}

	writeNote(t, dir, "huge.md", strings.Repeat("log line\n", 10000))
	for _, it := range items() {
		if it.ID == "curated:huge.md" && (len(it.Text) > 200 || !strings.Contains(it.Text, "left out")) {
			t.Errorf("a 90 KB note is included: %d bytes", len(it.Text))
		}
	}
}

func TestCuratedMissingFolder(t *testing.T) {
	got, err := memory.NewCurated(filepath.Join(t.TempDir(), "none")).Items(t.Context(), prompt.Query{})
	if err != nil || len(got) != 0 {
		t.Errorf("Items of a missing folder = %v, %v", got, err)
	}
}
