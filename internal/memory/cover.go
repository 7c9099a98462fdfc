package memory

import (
	"slices"
	"strings"

	"github.com/kljensen/snowball/english"

	"github.com/mynah-ai/mynah/internal/prompt"
)

// conjuncts returns the content words a query joins with "and" ("days in Japan and
// Chicago" → japan, chicago; "Melanie and her husband" → melanie, husband): the nearest
// word on each side of each "and" that is not a stop word, each once. A query that joins
// nothing returns none.
func conjuncts(query string, stop map[string]bool) []string {
	words := splitWords(strings.ToLower(query))
	var out []string
	add := func(from, step int) {
		for j := from; j >= 0 && j < len(words) && (j-from)*step < 3; j += step {
			if w := words[j]; w == "and" {
				return
			} else if !stop[w] && len([]rune(w)) > 1 {
				if !slices.Contains(out, w) {
					out = append(out, w)
				}
				return
			}
		}
	}
	for i, w := range words {
		if w == "and" {
			add(i-1, -1)
			add(i+1, 1)
		}
	}
	return out
}

// cover makes sure the first k of cands (ranked, best first) hold each of words that any
// of cands holds: a query for several things ("how many days in Japan and Chicago?")
// whose best hits all tell of one of them gets the best hit of each other one in place
// of the last hits that no word needs. A candidate holds a word when what it says (its
// text and its media's descriptions) has the word's English stem ("trips" holds "trip")
// or its sender is named so.
func cover(cands []*candidate, k int, words []string) []*candidate {
	if len(words) < 2 || len(cands) <= k {
		return cands
	}
	stems := make([]string, len(words))
	for i, w := range words {
		stems[i] = english.Stem(w, false)
	}
	held := make(map[*candidate][]bool, len(cands))
	holds := func(c *candidate, i int) bool {
		h, ok := held[c]
		if !ok {
			h = make([]bool, len(words))
			text := map[string]bool{}
			for _, w := range splitWords(strings.ToLower(prompt.Body(&c.msg))) {
				text[english.Stem(w, false)] = true
			}
			name := strings.ToLower(c.msg.Sender.FirstName)
			for j := range words {
				h[j] = text[stems[j]] || name == words[j]
			}
			held[c] = h
		}
		return h[i]
	}
	top := slices.Clone(cands[:k])
	rest := slices.Clone(cands[k:])
	for i := range words {
		if slices.ContainsFunc(top, func(c *candidate) bool { return holds(c, i) }) {
			continue
		}
		at := slices.IndexFunc(rest, func(c *candidate) bool { return holds(c, i) })
		if at < 0 {
			continue // no candidate tells of it
		}
		// The last hit of top that no word needs (the only one holding a word) yields.
		for j := len(top) - 1; j >= 0; j-- {
			needed := false
			for w := range words {
				if holds(top[j], w) && !slices.ContainsFunc(top, func(c *candidate) bool { return c != top[j] && holds(c, w) }) {
					needed = true
					break
				}
			}
			if !needed {
				out := top[j]
				top = append(slices.Delete(top, j, j+1), rest[at])
				rest[at] = out
				slices.SortStableFunc(rest, func(a, b *candidate) int { return cmpDesc(a.score, b.score) })
				break
			}
		}
	}
	return append(top, rest...)
}
