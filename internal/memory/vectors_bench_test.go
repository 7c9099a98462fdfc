package memory

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mynah-ai/mynah"
)

func randomVectors(r *rand.Rand, n, dims int) ([]vectorKey, [][]float32) {
	keys := make([]vectorKey, n)
	vecs := make([][]float32, n)
	for i := range vecs {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		keys[i] = vectorKey{chat: mynah.ChatID(i % 3), id: int64(i)}
		vecs[i] = unit(v)
	}
	return keys, vecs
}

// TestTopK checks the brute-force search against sorting every score.
func TestTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys, vecs := randomVectors(r, 500, 16)
	q := unit(vecs[7])
	for _, chat := range []mynah.ChatID{0, 2} {
		var all []Neighbour
		for i, v := range vecs {
			if chat == 0 || keys[i].chat == chat {
				all = append(all, Neighbour{Chat: keys[i].chat, ID: mynah.MessageID(keys[i].id), Score: float64(dot(q, v))})
			}
		}
		slices.SortFunc(all, func(a, b Neighbour) int { return cmpDesc(a.Score, b.Score) })
		got := topK(q, keys, vecs, chat, 10)
		if !slices.Equal(got, all[:10]) {
			t.Errorf("chat %d: topK = %v\nwant %v", chat, got, all[:10])
		}
	}
	if got := topK(q, keys, vecs, 0, 1); len(got) != 1 || got[0].ID != 7 || got[0].Score < 0.999 {
		t.Errorf("the vector itself is not its own nearest: %v", got)
	}
}

// BenchmarkTopK is the brute-force cosine search of one query over 20,000 vectors of
// 768 dimensions (an agent with a large history).
func BenchmarkTopK(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	keys, vecs := randomVectors(r, 20_000, 768)
	q := unit(vecs[0])
	for b.Loop() {
		topK(q, keys, vecs, 0, vectorPool)
	}
}
