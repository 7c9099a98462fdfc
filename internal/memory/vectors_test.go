package memory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// bagEmbedder embeds in process with the fake servers' vectors (a hashed bag of words,
// with synonyms), counting the texts it is sent.
type bagEmbedder struct {
	srv *llmtest.Server

	mu    sync.Mutex
	texts []string
	fail  error // returned by every call while set
}

func newBagEmbedder(t *testing.T) *bagEmbedder {
	srv := llmtest.NewOpenAI(t)
	srv.SetSynonyms(map[string]string{"kitten": "cat", "kittens": "cat", "feline": "cat"})
	return &bagEmbedder{srv: srv}
}

func (e *bagEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fail != nil {
		return nil, e.fail
	}
	e.texts = append(e.texts, texts...)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.srv.Embed(t, 0)
	}
	return out, nil
}

func (e *bagEmbedder) sent() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.texts)
}

var petChat = mynah.Chat{ID: 5, Type: mynah.ChatPrivate}

func importPets(t *testing.T, db *sqlite.DB, texts ...string) {
	t.Helper()
	msgs := make([]mynah.Message, len(texts))
	for i, text := range texts {
		msgs[i] = mynah.Message{Chat: petChat, ID: mynah.MessageID(i + 1), Sender: alice, Time: t0.Add(time.Duration(i) * time.Minute), Text: text}
	}
	if _, err := db.ImportMessages(t.Context(), "Mynah", petChat, msgs); err != nil {
		t.Fatal(err)
	}
}

func resultIDs(rs []memory.Result) []mynah.MessageID {
	var out []mynah.MessageID
	for _, r := range rs {
		out = append(out, r.MessageID)
	}
	return out
}

func TestHybridSearch(t *testing.T) {
	db := openStore(t)
	importPets(t, db,
		"We adopted a kitten from the shelter last week",
		"The meeting moved to Tuesday afternoon",
		"Grocery list: bread, milk and eggs",
	)
	emb := newBagEmbedder(t)
	vecs := memory.NewVectors(db, emb, memory.VectorsConfig{Agent: "Mynah", Model: "m"})
	if n, err := vecs.EmbedPending(t.Context()); err != nil || n != 3 {
		t.Fatalf("EmbedPending = %d, %v; want 3 embedded", n, err)
	}
	keyword := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	hybrid := keyword.WithVectors(vecs)
	q := memory.Query{Agent: "Mynah", Text: "does she have a cat? what about the meeting", K: 5}

	kw, err := keyword.Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(resultIDs(kw), 1) {
		t.Fatalf("keyword search found the kitten message %v: the test needs a query it misses", resultIDs(kw))
	}
	got, err := hybrid.Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	ids := resultIDs(got)
	if !slices.Contains(ids, 1) {
		t.Errorf("hybrid search %v does not find the kitten message by meaning", ids)
	}
	if !slices.Contains(ids, 2) {
		t.Errorf("hybrid search %v dropped the keyword hit (the meeting)", ids)
	}
	// As of before the kitten's message, meaning does not find it either.
	then := q
	then.Until = got[0].Time.Add(-time.Hour)
	if early, err := hybrid.Search(t.Context(), then); err != nil || len(early) != 0 {
		t.Errorf("hybrid search as of before every message: %v, %v; want nothing", resultIDs(early), err)
	}
	for _, r := range got {
		if r.Message == nil || r.Message.ID != r.MessageID || r.Snippet == "" {
			t.Errorf("result %+v lacks its message or snippet", r)
		}
	}
	// The query's embedding is remembered: a second search sends nothing.
	before := len(emb.sent())
	if _, err := hybrid.Search(t.Context(), q); err != nil {
		t.Fatal(err)
	}
	if after := len(emb.sent()); after != before {
		t.Errorf("the same query was embedded again (%d texts sent, had %d)", after, before)
	}
	// A provider outage leaves keyword results.
	emb.mu.Lock()
	emb.fail = &llm.Error{Provider: "fake", Status: 503, Message: "down"}
	emb.mu.Unlock()
	down, err := hybrid.Search(t.Context(), memory.Query{Agent: "Mynah", Text: "the meeting on tuesday"})
	if err != nil || !slices.Contains(resultIDs(down), 2) {
		t.Errorf("with the embedder down: %v, %v; want the keyword hit", resultIDs(down), err)
	}
}

func TestHybridSearchScopes(t *testing.T) {
	db := openStore(t)
	importPets(t, db, "Our kitten sleeps all day")
	other := mynah.Chat{ID: 6, Type: mynah.ChatPrivate}
	if _, err := db.ImportMessages(t.Context(), "Mynah", other, []mynah.Message{
		{Chat: other, ID: 1, Sender: dave, Time: t0, Text: "my kitten is called Tom"},
	}); err != nil {
		t.Fatal(err)
	}
	vecs := memory.NewVectors(db, newBagEmbedder(t), memory.VectorsConfig{Agent: "Mynah", Model: "m"})
	if _, err := vecs.EmbedPending(t.Context()); err != nil {
		t.Fatal(err)
	}
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil).WithVectors(vecs)
	for _, c := range []struct {
		q    memory.Query
		want []string
	}{
		{memory.Query{Agent: "Mynah", Text: "feline"}, []string{"5:1", "6:1"}},
		{memory.Query{Agent: "Mynah", Chat: other.ID, Text: "feline"}, []string{"6:1"}},
		{memory.Query{Agent: "Mynah", Sender: alice.ID, Text: "feline"}, []string{"5:1"}},
		{memory.Query{Agent: "Other", Text: "feline"}, nil},
	} {
		rs, err := s.Search(t.Context(), c.q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, fmt.Sprintf("%d:%d", r.Chat, r.MessageID))
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("Search(%+v) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestEmbedPending(t *testing.T) {
	db := openStore(t)
	importPets(t, db, "same words", "other words", "same words", "")
	emb := newBagEmbedder(t)
	emb.fail = &llm.Error{Provider: "fake", Status: 429, Message: "slow down"}
	vecs := memory.NewVectors(db, emb, memory.VectorsConfig{Agent: "Mynah", Model: "m", Batch: 2})
	var e *llm.Error
	if _, err := vecs.EmbedPending(t.Context()); !errors.As(err, &e) || e.Status != 429 {
		t.Fatalf("EmbedPending with the provider failing: %v, want its error", err)
	}
	emb.fail = nil
	n, err := vecs.EmbedPending(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The failed batch was retried; the repeated text is embedded once; empty text never.
	if got, want := emb.sent(), []string{"same words", "other words"}; !slices.Equal(got, want) || n != 2 {
		t.Errorf("embedded %d: %q, want %q", n, got, want)
	}
	if n, err := vecs.EmbedPending(t.Context()); err != nil || n != 0 {
		t.Errorf("a second EmbedPending embedded %d, %v; want 0", n, err)
	}
	near, err := vecs.Nearest(t.Context(), 0, "same words", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(near) != 3 || near[0].Score < 0.999 || near[2].ID != 2 {
		t.Errorf("Nearest = %+v, want messages 1 and 3 (identical) before 2", near)
	}
}

// rankingStore is a store that ranks vectors itself (as PostgreSQL with pgvector does),
// answering hits while ok, and counting its calls.
type rankingStore struct {
	*sqlite.DB
	ok    bool
	hits  []mynah.VectorHit
	calls int
}

func (s *rankingStore) NearestVectors(_ context.Context, scope mynah.VectorScope, _ []float32, k int) ([]mynah.VectorHit, bool, error) {
	s.calls++
	if !s.ok || scope.Agent != "Mynah" || scope.Model != "m" {
		return nil, false, nil
	}
	return s.hits[:min(k, len(s.hits))], true, nil
}

// TestNearestAsksAStoreThatRanks: with a store that ranks vectors itself, Nearest takes
// its ranking; when the store cannot (no extension), Nearest scores in memory.
func TestNearestAsksAStoreThatRanks(t *testing.T) {
	db := openStore(t)
	importPets(t, db, "We adopted a kitten from the shelter last week", "The meeting moved to Tuesday afternoon")
	store := &rankingStore{DB: db, ok: true, hits: []mynah.VectorHit{{Chat: petChat.ID, ID: 2, Score: 0.9}}}
	vecs := memory.NewVectors(store, newBagEmbedder(t), memory.VectorsConfig{Agent: "Mynah", Model: "m"})
	if _, err := vecs.EmbedPending(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, err := vecs.Nearest(t.Context(), 0, "a cat", 5)
	if err != nil || len(got) != 1 || got[0].ID != 2 || got[0].Score != 0.9 {
		t.Fatalf("Nearest = %+v, %v; want the store's one hit", got, err)
	}
	store.ok = false
	got, err = vecs.Nearest(t.Context(), 0, "a cat", 5)
	if err != nil || len(got) == 0 || got[0].ID != 1 {
		t.Errorf("Nearest without the store's ranking = %+v, %v; want the kitten message first, scored in memory", got, err)
	}
	if store.calls != 2 {
		t.Errorf("the store was asked %d times, want 2", store.calls)
	}
}
