package tokens

import (
	"hash/maphash"
	"sync"
)

// Cached returns a Counter that remembers the counts of recently seen texts, up to about
// 2×entries of them. A turn re-counts mostly the same history as the turn before, and an
// exact BPE count costs ~100× a map lookup. Texts are remembered by a 64-bit hash, not
// kept: two texts with one hash (about one chance in 2⁶⁴ per pair) share a count. Safe
// for concurrent use.
func Cached(c Counter, entries int) Counter {
	if entries <= 0 {
		entries = 4096
	}
	return &cache{c: c, gen: newGenerations[int](entries)}
}

type cache struct {
	c   Counter
	gen generations[int]
}

func (k *cache) Count(text string) int {
	if len(text) < 16 {
		return k.c.Count(text) // cheaper than hashing and the lock for short texts
	}
	h := k.gen.hash(text)
	if n, ok := k.gen.get(h); ok {
		return n
	}
	n := k.c.Count(text)
	k.gen.put(h, n)
	return n
}

// splitCache remembers the Split of recently seen texts, as cache does counts.
type splitCache struct{ gen generations[Costs] }

func newSplitCache(entries int) splitCache {
	return splitCache{gen: newGenerations[Costs](entries)}
}

// split returns Split(text), from the cache when text was seen lately.
func (k *splitCache) split(text string) Costs {
	if len(text) < 16 {
		return Split(text)
	}
	h := k.gen.hash(text)
	if c, ok := k.gen.get(h); ok {
		return c
	}
	c := Split(text)
	k.gen.put(h, c)
	return c
}

// generations is a bounded map from text hashes to values in two generations: lookups
// promote from old to cur, and when cur is full it becomes old, so the memory stays
// bounded without per-entry bookkeeping. Safe for concurrent use.
type generations[V any] struct {
	seed maphash.Seed
	max  int

	mu  sync.Mutex
	cur map[uint64]V
	old map[uint64]V
}

func newGenerations[V any](entries int) generations[V] {
	return generations[V]{seed: maphash.MakeSeed(), max: entries, cur: make(map[uint64]V)}
}

func (g *generations[V]) hash(text string) uint64 { return maphash.String(g.seed, text) }

func (g *generations[V]) get(h uint64) (V, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	v, ok := g.cur[h]
	if !ok {
		if v, ok = g.old[h]; ok {
			g.putLocked(h, v)
		}
	}
	return v, ok
}

func (g *generations[V]) put(h uint64, v V) {
	g.mu.Lock()
	g.putLocked(h, v)
	g.mu.Unlock()
}

func (g *generations[V]) putLocked(h uint64, v V) {
	if len(g.cur) >= g.max {
		g.old, g.cur = g.cur, make(map[uint64]V, g.max)
	}
	g.cur[h] = v
}
