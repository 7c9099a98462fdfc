package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/memory"
)

// TestEngine: one engine gives the prompt, the model's tools and the operator's search the
// same indexes, and Run keeps them up to date — notes written by hand are found, new
// messages get embedded — until its context ends.
func TestEngine(t *testing.T) {
	db := openStore(t)
	importPets(t, db, "We adopted a kitten from the shelter last week", "The meeting moved to Tuesday")
	curated := t.TempDir()
	if err := os.WriteFile(filepath.Join(curated, "house.md"), []byte("# House\nThe wifi password is on the fridge.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	emb := newBagEmbedder(t)
	e := memory.New(memory.Config{
		Agent: "Mynah", CuratedDir: curated, EpisodicDir: t.TempDir(), Embeddings: "m",
		NotesEvery: 10 * time.Millisecond, EmbedEvery: 10 * time.Millisecond,
	}, db, nil, emb)

	var names []string
	for _, tl := range e.Tools() {
		names = append(names, tl.Spec().Name)
	}
	if want := []string{"remember", "forget", "memory_search", "memory_get", "note"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	src := e.Sources()
	if src.Memory == nil || src.Summaries == nil || src.Recall == nil {
		t.Errorf("sources %+v: want memory, summaries and recall layers", src)
	}

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	// Run syncs the notes and embeds the messages in the background; poll what a user
	// would see: the note found by search, the kitten found by meaning.
	deadline := time.Now().Add(20 * time.Second)
	for {
		note, err := e.Search(t.Context(), memory.Query{Text: "wifi password", K: 5})
		if err != nil {
			t.Fatal(err)
		}
		cat, err := e.Search(t.Context(), memory.Query{Text: "does she have a cat", K: 5})
		if err != nil {
			t.Fatal(err)
		}
		foundNote := len(note) > 0 && note[0].Kind == memory.KindNote
		if foundNote && slices.Contains(resultIDs(cat), 1) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Run: note search %+v, meaning search %v; want the note and message 1", note, resultIDs(cat))
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after cancel = %v, want nil", err)
	}
}

// TestEngineKeywordOnly: without an embedder the engine searches by keyword and Run
// starts no embedder.
func TestEngineKeywordOnly(t *testing.T) {
	db := openStore(t)
	importPets(t, db, "We adopted a kitten from the shelter last week")
	e := memory.New(memory.Config{Agent: "Mynah", Embeddings: "m"}, db, nil, nil)
	got, err := e.Search(t.Context(), memory.Query{Text: "kitten", K: 5})
	if err != nil || !slices.Contains(resultIDs(got), 1) {
		t.Fatalf("keyword search = %v, %v; want message 1", resultIDs(got), err)
	}
	if got, _ := e.Search(t.Context(), memory.Query{Text: "cat", K: 5}); len(got) != 0 {
		t.Errorf("keyword-only search for a word nobody wrote found %v", resultIDs(got))
	}
}
