package sqlite

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mynah-ai/mynah"
)

// TestVectorPlans checks that the vector statements use their indexes.
func TestVectorPlans(t *testing.T) {
	db := openTemp(t)
	checkPlans(t, db, map[string][]any{
		queryVectorProgress: {"a", "m"},
		queryVectorPending:  {0, 64},
		queryVectorByHash:   {"m", []byte{1}},
		queryVectorsChat:    {"a", "m", "message", 1, 0},
		queryVectorsAgent:   {"a", "m", "message", 0},
		insertVectorItem:    {"a", "m", "message", 1, 1, 0, 1},
		setVectorProgress:   {"a", "m", 1},
	})
}

// BenchmarkLoadVectors loads an agent's 20,000 vectors of 768 dimensions, as a search
// does once per process before its in-memory cache takes over.
func BenchmarkLoadVectors(b *testing.B) {
	db := openTemp(b)
	r := rand.New(rand.NewPCG(1, 2))
	items := make([]mynah.VectorItem, 20_000)
	for i := range items {
		v := make([]float32, 768)
		for j := range v {
			v[j] = r.Float32()
		}
		items[i] = mynah.VectorItem{Kind: mynah.VectorMessage, Chat: 1, ID: int64(i + 1), Text: fmt.Sprint("text ", i), Vector: v}
	}
	if err := db.SaveVectors(b.Context(), "a", "m", items, 0); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		vs, err := db.LoadVectors(b.Context(), mynah.VectorScope{Agent: "a", Model: "m"})
		if err != nil || len(vs) != len(items) {
			b.Fatalf("%d vectors, %v", len(vs), err)
		}
	}
}
