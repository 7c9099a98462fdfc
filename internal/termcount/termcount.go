// Package termcount is how both stores (internal/sqlite, internal/postgres) tell a
// search's rare words from its common and very common ones: the thresholds, one set for
// both so that they rank alike, and a cache of the counts a store probed, kept while they
// still decide the same. Why these thresholds, and what they cost and gain, is measured
// in internal/sqlite's search.go.
package termcount

import (
	"cmp"
	"slices"
	"sync"
)

// How many matches in a search's scope make a term common or very common, and how many
// of the newest matches a query of common terms alone ranks. A rare term's matches are
// all ranked; a common one weighs where it meets a rare one; a very common one is left
// out, a stop word found in the data.
const (
	Common        = 500
	VeryCommon    = 20000
	RecentMatches = 500
	// MaxRanked is how many rare terms, and how many common ones, a search ranks at
	// most: the rarest of them. FTS5's bm25 and PostgreSQL's ts_rank weigh every term in
	// every match, so a search's cost grows with both; a question has a few dozen words
	// at most, its kinds' names included ("which countries" adds ninety, most of which a
	// chat never names), but a pasted article or a long answer that an automatic recall
	// searches by has hundreds: 3,000 words took 3.9 s over 100,000 messages.
	MaxRanked = 48
)

// Split sorts a search's terms by counts, their matches in its scope (a count each, in
// the terms' order): the indexes of the rare terms (at least one match, fewer than
// Common), in order, and of the common ones (fewer than VeryCommon), least common first.
// partial is true when some term is common or very common, so that not all its matches
// are ranked. A term that matches nothing is neither: narrowing a query to it would find
// nothing ("Havells grooming kit" with no "grooming" anywhere). Past MaxRanked of either,
// the more common ones are left out, and partial is true.
func Split(counts []int64) (rare, common []int, partial bool) {
	var commonCounts []int64
	for i, n := range counts {
		switch {
		case n <= 0:
		case n >= VeryCommon:
			partial = true
		case n < Common:
			rare = append(rare, i)
		default:
			j, _ := slices.BinarySearch(commonCounts, n)
			commonCounts, common = slices.Insert(commonCounts, j, n), slices.Insert(common, j, i)
		}
	}
	if len(rare) > MaxRanked {
		// the rarest, in the terms' order
		slices.SortStableFunc(rare, func(a, b int) int { return cmp.Compare(counts[a], counts[b]) })
		rare = rare[:MaxRanked]
		slices.Sort(rare)
		partial = true
	}
	if len(common) > MaxRanked {
		common = common[:MaxRanked]
	}
	return rare, common, partial || len(common) > 0
}

// Cache remembers how many matches terms have in scopes, each count with the mark its
// store had when it probed it: a number that grows by at least one with each message
// indexed (SQLite's index mark, a chat's count of entries on PostgreSQL). A count stays
// true enough to decide by as long as the messages indexed since cannot have changed the
// decision: a very common term stays very common, and a term with n matches stays rare
// (or common) while fewer than Common - n (VeryCommon - n) messages were indexed since;
// which common term is the least common may be off by those. An edit replaces a message's
// entry without moving the mark, so it may leave a count off by one: no more than the
// choice of ranking for a term near a threshold, except for a term that matched nothing,
// which would stay out of every search though the edit brought it in. So that count is
// never kept: such a probe costs no match to count. Every count is probed again once the
// mark is lower than when it was taken (messages were deleted). It holds at most
// maxEntries counts, forgetting all of them when full. The zero value is ready; it is
// safe for concurrent use.
type Cache[K comparable] struct {
	mu     sync.Mutex
	counts map[K]count
}

type count struct {
	n    int64 // matches, up to VeryCommon
	mark int64
}

const maxEntries = 10_000

// Get returns the count of k probed at or before mark, and whether it still decides.
func (c *Cache[K]) Get(k K, mark int64) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tc, ok := c.counts[k]
	switch {
	case !ok || mark < tc.mark:
		return 0, false
	case tc.n >= VeryCommon:
		return tc.n, true
	case tc.n >= Common:
		return tc.n, tc.n+mark-tc.mark < VeryCommon
	}
	return tc.n, tc.n+mark-tc.mark < Common
}

// Put remembers n, the count of k probed at mark; a count of 0 is not kept.
func (c *Cache[K]) Put(k K, n, mark int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n <= 0 {
		delete(c.counts, k)
		return
	}
	if c.counts == nil || len(c.counts) >= maxEntries {
		c.counts = make(map[K]count)
	}
	c.counts[k] = count{n: n, mark: mark}
}
