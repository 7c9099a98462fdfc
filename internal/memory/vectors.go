package memory

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// VectorStore keeps an agent's embeddings (see mynah.VectorStore).
type VectorStore interface {
	PendingVectors(ctx context.Context, agent, model string, limit int) ([]mynah.VectorItem, mynah.VectorCursor, error)
	SaveVectors(ctx context.Context, agent, model string, items []mynah.VectorItem, through mynah.VectorCursor) error
	LoadVectors(ctx context.Context, scope mynah.VectorScope) ([]mynah.StoredVector, error)
}

// VectorsConfig configures Vectors.
type VectorsConfig struct {
	Agent string
	Model string // the embedding model, as the provider names it
	// Batch is how many texts one embeddings call carries; 0 means 64.
	Batch int
	// MaxRounds bounds the batches one EmbedPending call sends, so a large backlog (an
	// import) is worked off over several calls; 0 means 50.
	MaxRounds int
	// Log receives the failures searches survive (keyword results only); nil drops them.
	Log *slog.Logger
}

// Vectors embeds an agent's messages in the background (EmbedPending) and finds the
// messages nearest a query by brute-force cosine similarity (Nearest). It keeps the
// agent's vectors in memory, loading only what was saved since the last search. It is
// safe for concurrent use.
type Vectors struct {
	store VectorStore
	emb   llm.Embedder
	cfg   VectorsConfig

	mu      sync.Mutex
	loaded  int64 // sequence number of the last vector loaded
	keys    []vectorKey
	vecs    [][]float32 // unit length, parallel to keys; never modified in place
	index   map[vectorKey]int
	queries map[string][]float32 // recent query embeddings
	order   []string             // queries, oldest first
}

type vectorKey struct {
	chat mynah.ChatID
	id   int64
}

// queryCache is how many query embeddings Vectors remembers: a conversation repeats its
// recall queries, and each costs a provider call.
const queryCache = 256

// NewVectors returns Vectors for cfg's agent and model over store, embedding with emb. It
// does no I/O.
func NewVectors(store VectorStore, emb llm.Embedder, cfg VectorsConfig) *Vectors {
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = 50
	}
	return &Vectors{store: store, emb: emb, cfg: cfg, index: map[vectorKey]int{}, queries: map[string][]float32{}}
}

// EmbedPending embeds the agent's messages that have no vector yet, a batch per call to
// the provider, and returns how many it embedded. A text embedded before is not sent
// again. On a provider error it stops and returns it; the failed batch stays pending and
// is tried again by the next call.
func (v *Vectors) EmbedPending(ctx context.Context) (int, error) {
	total := 0
	var last mynah.VectorCursor = -1
	for range v.cfg.MaxRounds {
		items, cur, err := v.store.PendingVectors(ctx, v.cfg.Agent, v.cfg.Model, v.cfg.Batch)
		if err != nil {
			return total, err
		}
		if len(items) == 0 && cur == last {
			return total, nil
		}
		last = cur
		var texts []string
		var at []int
		for i, it := range items {
			if it.Vector == nil {
				texts = append(texts, it.Text)
				at = append(at, i)
			}
		}
		if len(texts) > 0 {
			vecs, err := v.emb.Embed(ctx, v.cfg.Model, texts)
			if err != nil {
				return total, fmt.Errorf("memory: embedding %d messages of %s: %w", len(texts), v.cfg.Agent, err)
			}
			if len(vecs) != len(texts) {
				return total, fmt.Errorf("memory: %d embeddings for %d messages", len(vecs), len(texts))
			}
			for j, i := range at {
				items[i].Vector = vecs[j]
			}
		}
		if err := v.store.SaveVectors(ctx, v.cfg.Agent, v.cfg.Model, items, cur); err != nil {
			return total, err
		}
		total += len(texts)
	}
	return total, nil
}

// RunEmbedder returns a function that embeds pending messages and logs failures, for
// serve to call every few seconds. Errors never reach a chat: the messages wait for the
// next call.
func (v *Vectors) RunEmbedder(ctx context.Context, log *slog.Logger) func() {
	return func() {
		n, err := v.EmbedPending(ctx)
		if err != nil && ctx.Err() == nil {
			log.Warn("embedding messages for search", "agent", v.cfg.Agent, "model", v.cfg.Model, "embedded", n, "err", err)
		} else if n > 0 {
			log.Debug("embedded messages for search", "agent", v.cfg.Agent, "embedded", n)
		}
	}
}

// Neighbour is a message near a query, with its cosine similarity in [-1, 1].
type Neighbour struct {
	Chat  mynah.ChatID
	ID    mynah.MessageID
	Score float64
}

// Nearest returns up to k messages of the agent (of chat, unless 0) most similar to text,
// best first.
func (v *Vectors) Nearest(ctx context.Context, chat mynah.ChatID, text string, k int) ([]Neighbour, error) {
	q, err := v.queryVector(ctx, text)
	if err != nil {
		return nil, err
	}
	// A store that ranks vectors itself (PostgreSQL with pgvector) spares the copy.
	if vs, ok := v.store.(mynah.VectorSearcher); ok {
		hits, ok, err := vs.NearestVectors(ctx, mynah.VectorScope{Agent: v.cfg.Agent, Model: v.cfg.Model, Kind: mynah.VectorMessage, Chat: chat}, q, k)
		if err != nil {
			return nil, fmt.Errorf("memory: nearest vectors: %w", err)
		}
		if ok {
			out := make([]Neighbour, len(hits))
			for i, h := range hits {
				out[i] = Neighbour{Chat: h.Chat, ID: mynah.MessageID(h.ID), Score: h.Score}
			}
			return out, nil
		}
	}
	keys, vecs, err := v.refresh(ctx)
	if err != nil {
		return nil, err
	}
	return topK(q, keys, vecs, chat, k), nil
}

func (v *Vectors) queryVector(ctx context.Context, text string) ([]float32, error) {
	v.mu.Lock()
	q, ok := v.queries[text]
	v.mu.Unlock()
	if ok {
		return q, nil
	}
	vecs, err := v.emb.Embed(ctx, v.cfg.Model, []string{text})
	if err != nil {
		return nil, fmt.Errorf("memory: embedding the query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("memory: %d embeddings for one query", len(vecs))
	}
	q = unit(vecs[0])
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.queries[text]; !ok {
		if len(v.order) == queryCache {
			delete(v.queries, v.order[0])
			v.order = v.order[1:]
		}
		v.queries[text] = q
		v.order = append(v.order, text)
	}
	return q, nil
}

// refresh loads the vectors saved since the last call and returns a snapshot of all.
// The snapshot's slices are never written again, so it is read without the lock.
func (v *Vectors) refresh(ctx context.Context) ([]vectorKey, [][]float32, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	fresh, err := v.store.LoadVectors(ctx, mynah.VectorScope{Agent: v.cfg.Agent, Model: v.cfg.Model, Kind: mynah.VectorMessage, After: v.loaded})
	if err != nil {
		return nil, nil, fmt.Errorf("memory: loading vectors: %w", err)
	}
	copied := false
	for _, s := range fresh {
		key := vectorKey{s.Chat, s.ID}
		if i, ok := v.index[key]; ok {
			// A replaced vector: copy before writing, as earlier snapshots share the array.
			if !copied {
				v.vecs = slices.Clone(v.vecs)
				copied = true
			}
			v.vecs[i] = unit(s.Vector)
		} else {
			v.index[key] = len(v.keys)
			v.keys = append(v.keys, key)
			v.vecs = append(v.vecs, unit(s.Vector))
		}
		v.loaded = max(v.loaded, s.Seq)
	}
	return v.keys, v.vecs, nil
}

// unit returns v scaled to length 1 (v itself when it is zero), so cosine similarity is
// a dot product.
func unit(v []float32) []float32 {
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	if n == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(n))
	out := make([]float32, len(v))
	for i, f := range v {
		out[i] = f * inv
	}
	return out
}

func dot(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0 // another model's dimension: not comparable
	}
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// topK is the brute-force search: the k keys (of chat, unless 0) whose vectors have the
// largest dot product with q, best first. A small sorted list beats a heap for the k of
// a search (tens).
func topK(q []float32, keys []vectorKey, vecs [][]float32, chat mynah.ChatID, k int) []Neighbour {
	if k <= 0 {
		return nil
	}
	best := make([]Neighbour, 0, k+1)
	for i, vec := range vecs {
		if chat != 0 && keys[i].chat != chat {
			continue
		}
		s := float64(dot(q, vec))
		if len(best) == k && s <= best[k-1].Score {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, s, func(n Neighbour, s float64) int { return cmpDesc(n.Score, s) })
		best = slices.Insert(best, at, Neighbour{Chat: keys[i].chat, ID: mynah.MessageID(keys[i].id), Score: s})
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}
