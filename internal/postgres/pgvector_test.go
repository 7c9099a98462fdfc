package postgres

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// requireVectorExtension skips t when the server does not offer the vector extension,
// unless MYNAH_REQUIRE_PGVECTOR is set (CI builds and installs it): then t fails.
func requireVectorExtension(t *testing.T, db *DB) {
	t.Helper()
	var available bool
	if err := db.pool.QueryRow(t.Context(), vectorAvailableQuery).Scan(&available); err != nil {
		t.Fatal(err)
	}
	if !available {
		if os.Getenv("MYNAH_REQUIRE_PGVECTOR") != "" {
			t.Fatal("the vector extension is not installed on the server and MYNAH_REQUIRE_PGVECTOR is set")
		}
		t.Skip("the server does not offer the vector extension (pgvector)")
	}
	if db.vectorSchema == "" {
		t.Fatal("the server offers the vector extension, but the store did not take it up")
	}
}

// vectorKey is an item's key in these tests.
type vectorKey struct {
	chat mynah.ChatID
	id   int64
}

// testVectors saves n vectors of dimension dim for agent a, alternating between chats 1
// and 2, and returns them by item.
func testVectors(t *testing.T, db *DB, n, dim int) map[vectorKey][]float32 {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var items []mynah.VectorItem
	byItem := map[vectorKey][]float32{}
	for i := range n {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		it := mynah.VectorItem{Kind: mynah.VectorMessage, Chat: mynah.ChatID(1 + i%2), ID: int64(i + 1),
			Text: fmt.Sprintf("message %d", i), Time: time.Unix(int64(i), 0), Vector: v}
		items = append(items, it)
		byItem[vectorKey{it.Chat, it.ID}] = v
	}
	if err := db.SaveVectors(t.Context(), "a", "emb", items, 0); err != nil {
		t.Fatal(err)
	}
	return byItem
}

// cosineRanking is what memory.Vectors computes in Go: the items of chat (0: all) by
// cosine similarity to q, best first.
func cosineRanking(q []float32, vecs map[vectorKey][]float32, chat mynah.ChatID) []mynah.VectorHit {
	norm := func(v []float32) float64 {
		var s float64
		for _, f := range v {
			s += float64(f) * float64(f)
		}
		return math.Sqrt(s)
	}
	var out []mynah.VectorHit
	for it, v := range vecs {
		if chat != 0 && it.chat != chat {
			continue
		}
		var dot float64
		for i := range v {
			dot += float64(v[i]) * float64(q[i])
		}
		out = append(out, mynah.VectorHit{Chat: it.chat, ID: it.id, Score: dot / norm(v) / norm(q)})
	}
	slices.SortFunc(out, func(a, b mynah.VectorHit) int {
		if a.Score > b.Score {
			return -1
		}
		if a.Score < b.Score {
			return 1
		}
		return 0
	})
	return out
}

func checkHits(t *testing.T, what string, got, want []mynah.VectorHit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i].Chat != want[i].Chat || got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-5 {
			t.Errorf("%s: hit %d is %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

// TestNearestVectorsInTheServer: with pgvector, the server ranks an agent's vectors (all
// chats, or one) as mynah would in memory: the same items, order and similarities.
func TestNearestVectorsInTheServer(t *testing.T) {
	db, _ := openTemp(t)
	requireVectorExtension(t, db)
	vecs := testVectors(t, db, 60, 16)
	q := make([]float32, 16)
	for i := range q {
		q[i] = float32(i%5) - 2
	}
	for _, chat := range []mynah.ChatID{0, 2} {
		hits, ok, err := db.NearestVectors(t.Context(), mynah.VectorScope{Agent: "a", Model: "emb", Chat: chat}, q, 7)
		if err != nil || !ok {
			t.Fatalf("chat %d: NearestVectors: ok %v, %v", chat, ok, err)
		}
		checkHits(t, fmt.Sprintf("chat %d", chat), hits, cosineRanking(q, vecs, chat)[:7])
	}
	if hits, _, err := db.NearestVectors(t.Context(), mynah.VectorScope{Agent: "b", Model: "emb"}, q, 7); err != nil || len(hits) != 0 {
		t.Errorf("another agent's search found %d hits (%v), want none", len(hits), err)
	}
	if hits, _, err := db.NearestVectors(t.Context(), mynah.VectorScope{Agent: "a", Model: "other"}, q, 7); err != nil || len(hits) != 0 {
		t.Errorf("another model's search found %d hits (%v), want none", len(hits), err)
	}
}

// TestVectorsWithoutEmbeddingAreFilledIn: vectors stored without the extension's column
// (before it was installed, or copied in by mynah store copy) get it when a store opens.
func TestVectorsWithoutEmbeddingAreFilledIn(t *testing.T) {
	db, dsn := openTemp(t)
	requireVectorExtension(t, db)
	vecs := testVectors(t, db, 20, 8)
	if _, err := db.pool.Exec(t.Context(), `UPDATE vectors SET embedding = NULL`); err != nil {
		t.Fatal(err)
	}
	again, err := Open(context.Background(), dsn, Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	q := []float32{1, 0, 0, 0, 0, 0, 0, 1}
	hits, ok, err := again.NearestVectors(t.Context(), mynah.VectorScope{Agent: "a", Model: "emb"}, q, 20)
	if err != nil || !ok {
		t.Fatalf("NearestVectors: ok %v, %v", ok, err)
	}
	checkHits(t, "after reopening", hits, cosineRanking(q, vecs, 0))
}
