package memory

import (
	"slices"
	"strings"

	"github.com/kljensen/snowball/english"

	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/stem"
)

// isASCII reports whether w is written in ASCII alone: an English word, stemmed as
// English; others are stemmed by stem.
func isASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			return false
		}
	}
	return true
}

// conjuncts returns the content words a query joins with "and" ("days in Japan and
// Chicago" → japan, chicago; "Melanie and her husband" → melanie, husband; Ukrainian і,
// й, та and Russian и alike), or with "or" when it asks which came first (see compares:
// "which did I adopt first, Susie or Seraphim?" → susie, seraphim): the nearest word on
// each side of each "and" that is not a stop word nor asks how many ("and how many years
// with his team" → years), each once. A query that joins nothing returns none.
func conjuncts(query string, stop map[string]bool) []string {
	words := splitWords(strings.ToLower(query))
	var out []string
	either := compares(words)
	and := func(w string) bool {
		switch w {
		case "and", "і", "й", "та", "и":
			return true
		case "or", "або", "чи", "или":
			return either
		}
		return false
	}
	add := func(from, step int) {
		for j := from; j >= 0 && j < len(words) && (j-from)*step < 3; j += step {
			if w := words[j]; and(w) {
				return
			} else if !stop[w] && !quantity[w] && len([]rune(w)) > 1 {
				if !slices.Contains(out, w) {
					out = append(out, w)
				}
				return
			}
		}
	}
	for i, w := range words {
		if and(w) {
			add(i-1, -1)
			add(i+1, 1)
		}
	}
	return out
}

// quantity are the words of a question asking how many or how long ("how many", «скільки»):
// the thing asked about comes after them.
var quantity = map[string]bool{"many": true, "much": true, "often": true, "long": true,
	"скільки": true, "сколько": true}

// compares reports whether a query's words ask which of two things came first or last
// ("which did I adopt first, Susie or Seraphim?", "did I see Ann or Bob more recently?",
// «що я купила раніше, лампу чи стіл?»): its answer needs when each of them was, so its
// results should hold both.
func compares(words []string) bool {
	or, order := false, false
	for _, w := range words {
		switch w {
		case "or", "або", "чи", "или":
			or = true
		case "first", "earlier", "earliest", "later", "latest", "sooner", "recently",
			"раніше", "пізніше", "спочатку", "першим", "першою", "раньше", "позже", "сначала", "первым", "первой":
			order = true
		}
	}
	return or && order
}

// cover makes sure the first k of cands (ranked, best first) hold each of h's words that
// any of cands holds: a query for several things ("how many days in Japan and Chicago?")
// whose best hits all tell of one of them gets the best hit of each other one in place
// of the last hits that no word needs. A candidate holds a word when what it says (its
// text and its media's descriptions) has the word's stem ("trips" holds "trip", «Японії»
// holds «Японія», as stem reads Ukrainian and Russian) or its sender is named so.
func cover(cands []*candidate, k int, h *holder) []*candidate {
	words, holds := h.words, h.holds
	if len(words) < 2 || len(cands) <= k {
		return cands
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

// holder tells which of words a candidate holds (see cover), each candidate read once.
type holder struct {
	words  []string
	stems  [][]string
	starts map[string]bool // the first two bytes of each stem
	held   map[*candidate][]bool
}

func newHolder(words []string) *holder {
	h := &holder{words: words, stems: make([][]string, len(words)), starts: map[string]bool{}, held: map[*candidate][]bool{}}
	for i, w := range words {
		if isASCII(w) {
			h.stems[i] = []string{english.Stem(w, false)}
		} else {
			h.stems[i] = stem.Query(w) // a word of no clear language: its Russian and Ukrainian stems
		}
		for _, s := range h.stems[i] {
			h.starts[s[:min(2, len(s))]] = true
		}
	}
	return h
}

// addForms makes each word held also where one of its forms is (forms[word]), before any
// candidate is read.
func (h *holder) addForms(forms map[string][]string) {
	for i, w := range h.words {
		for _, f := range forms[w] {
			st := english.Stem(f, false)
			h.stems[i] = append(h.stems[i], st)
			h.starts[st[:min(2, len(st))]] = true
		}
	}
}

// holdsAll reports whether c holds every word.
func (h *holder) holdsAll(c *candidate) bool {
	for i := range h.words {
		if !h.holds(c, i) {
			return false
		}
	}
	return true
}

// holds reports whether c holds the ith word.
func (h *holder) holds(c *candidate, i int) bool {
	held, ok := h.held[c]
	if !ok {
		held = make([]bool, len(h.words))
		text := map[string]bool{}
		// stem.Text stems a message's Cyrillic words in the language the message is in
		for _, w := range splitWords(stem.Text(strings.ToLower(prompt.Body(&c.msg)))) {
			if isASCII(w) {
				if len(w) > 2 && !h.starts[w[:2]] {
					continue // no word's stem starts so: a stem keeps its word's first letters
				}
				w = english.Stem(w, false)
			}
			text[w] = true
		}
		name := strings.ToLower(c.msg.Sender.FirstName)
		for j := range h.words {
			held[j] = slices.ContainsFunc(h.stems[j], func(s string) bool { return text[s] }) || name == h.words[j]
		}
		h.held[c] = held
	}
	return held[i]
}
