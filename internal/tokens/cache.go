package tokens

import "sync"

// Cached returns a Counter that remembers the counts of recently seen texts, up to about
// 2×entries of them. A turn re-counts mostly the same history as the turn before, and an
// exact BPE count costs ~100× a map lookup. Safe for concurrent use.
func Cached(c Counter, entries int) Counter {
	if entries <= 0 {
		entries = 4096
	}
	return &cache{c: c, max: entries, cur: make(map[string]int, entries)}
}

// cache keeps two generations: lookups promote from old to cur, and when cur is full it
// becomes old, so the memory stays bounded without per-entry bookkeeping.
type cache struct {
	c   Counter
	max int

	mu  sync.Mutex
	cur map[string]int
	old map[string]int
}

func (k *cache) Count(text string) int {
	if len(text) < 16 {
		return k.c.Count(text) // cheaper than the lock for short texts
	}
	k.mu.Lock()
	n, ok := k.cur[text]
	if !ok {
		if n, ok = k.old[text]; ok {
			k.put(text, n)
		}
	}
	k.mu.Unlock()
	if ok {
		return n
	}
	n = k.c.Count(text)
	k.mu.Lock()
	k.put(text, n)
	k.mu.Unlock()
	return n
}

func (k *cache) put(text string, n int) {
	if len(k.cur) >= k.max {
		k.old, k.cur = k.cur, make(map[string]int, k.max)
	}
	k.cur[text] = n
}
