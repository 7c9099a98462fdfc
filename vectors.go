package mynah

import (
	"context"
	"time"
)

// VectorKind is what a stored vector belongs to. The key of an item is (kind, chat, id):
// a message is (VectorMessage, its chat, its id); a note chunk is expected to be
// (VectorNote, 0, the chunk's id).
type VectorKind string

// Kinds of embedded items.
const (
	VectorMessage VectorKind = "message"
	VectorNote    VectorKind = "note"
)

// VectorItem is one item of an agent that has, or needs, a vector of one model.
type VectorItem struct {
	Kind VectorKind
	Chat ChatID
	ID   int64
	Text string    // what is embedded (PendingVectors); empty from LoadVectors
	Time time.Time // when the message was sent
	// Vector is the embedding: float32 values of the model's dimension. PendingVectors
	// fills it when the same text was embedded by the model before (vectors are cached by
	// content), so the caller embeds only the items whose Vector is nil.
	Vector []float32
}

// VectorCursor is how far through an agent's messages PendingVectors has come; it is
// opaque to callers, who hand it back to SaveVectors.
type VectorCursor int64

// VectorScope selects the vectors LoadVectors returns.
type VectorScope struct {
	Agent string
	Model string
	Kind  VectorKind
	Chat  ChatID // 0: every chat of the agent
	// After skips the vectors saved up to and including this sequence number, so a
	// cache loads only what is new; 0 loads all.
	After int64
}

// VectorStore keeps embeddings: each text is embedded once per model (vectors are keyed
// by model and a hash of the text), and each item maps to its vector.
type VectorStore interface {
	// PendingVectors returns up to limit messages of agent, oldest first, that have no
	// vector of model yet and have text, and the cursor to hand to SaveVectors. Its cost
	// grows with the messages stored since the cursor, never with the whole history; no
	// items and a cursor means everything stored so far has a vector.
	PendingVectors(ctx context.Context, agent, model string, limit int) ([]VectorItem, VectorCursor, error)
	// SaveVectors stores the vectors of items (every item must have one, as returned by
	// PendingVectors or filled by the caller) and advances agent's cursor for model to
	// through, in one transaction. Saving an item again replaces its vector.
	SaveVectors(ctx context.Context, agent, model string, items []VectorItem, through VectorCursor) error
	// LoadVectors returns the vectors of scope in the order they were saved, each with
	// its sequence number (for VectorScope.After), Text empty.
	LoadVectors(ctx context.Context, scope VectorScope) ([]StoredVector, error)
}

// VectorSearcher is implemented by a VectorStore that can rank vectors itself
// (PostgreSQL with the vector extension): the caller then keeps no copy of them.
type VectorSearcher interface {
	// NearestVectors returns up to k items of scope (its After ignored), the most similar
	// to q (cosine similarity) first. ok is false when the store cannot rank them (the
	// extension is missing): the caller scores LoadVectors' vectors itself.
	NearestVectors(ctx context.Context, scope VectorScope, q []float32, k int) (hits []VectorHit, ok bool, err error)
}

// VectorHit is an item NearestVectors found, with its cosine similarity to the query.
type VectorHit struct {
	Chat  ChatID
	ID    int64
	Score float64
}

// StoredVector is one item's vector as LoadVectors returns it.
type StoredVector struct {
	VectorItem
	Seq int64
}
