package stem

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

const (
	minEditRunes = 4
	maxEditRunes = 12
	// fullEditRunes is the length from which a word's edits include a letter left out or
	// changed: one such edit from a four-letter word is dozens of other words ("cats":
	// cars, cuts, cat, act), while a swap or an added letter rarely is ("yoag": yoga,
	// "kayk": kayak).
	fullEditRunes = 5
)

const (
	latinLetters    = "abcdefghijklmnopqrstuvwxyz"
	cyrillicLetters = "абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґ"
)

// editAlphabet returns the letters a word's edits may use: those of its script, or ""
// when it is too short or long, or not all letters of one script.
func editAlphabet(word string) string {
	n := utf8.RuneCountInString(word)
	if n < minEditRunes || n > maxEditRunes {
		return ""
	}
	latin, cyrillic := true, true
	for _, r := range word {
		latin = latin && 'a' <= r && r <= 'z'
		cyrillic = cyrillic && strings.ContainsRune(cyrillicLetters, r)
	}
	switch {
	case latin:
		return latinLetters
	case cyrillic:
		return cyrillicLetters
	}
	return ""
}

// Edits returns the words one edit from a lower-case word — a letter left out, two
// neighbours swapped, a letter changed, a letter added, with letters of its script — each
// once, without the word itself, in that order: what a mistyped word may have meant (see
// the stores' Typos). A word of four letters has only its swaps and additions (see
// fullEditRunes). A word of fewer than 4 or more than 12 letters has none (one edit from
// a short word is too many others), nor one with digits or not all Latin or all Cyrillic.
func Edits(word string) []string {
	alphabet := editAlphabet(word)
	if alphabet == "" {
		return nil
	}
	w, letters := []rune(word), []rune(alphabet)
	full := len(w) >= fullEditRunes
	seen := map[string]bool{word: true}
	var out []string
	add := func(rs []rune) {
		if s := string(rs); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if full {
		for i := range w { // a letter left out
			add(append(append([]rune{}, w[:i]...), w[i+1:]...))
		}
	}
	for _, v := range swaps(w) {
		add(v)
	}
	if full {
		for i := range w { // a letter changed
			for _, l := range letters {
				v := append([]rune{}, w...)
				v[i] = l
				add(v)
			}
		}
	}
	for i := 0; i <= len(w); i++ { // a letter added
		for _, l := range letters {
			add(append(append(append([]rune{}, w[:i]...), l), w[i:]...))
		}
	}
	return out
}

// Swaps returns the words made from a lower-case word by swapping two neighbouring
// letters, each once, without the word itself; none for the words Edits has none for.
// Swapped letters are the commonest slip in typing, and seldom make another word: of a
// search's words that match nothing while others match, the stores try these alone
// (see the stores' Typos), not all of Edits, which turn words a chat never used into
// ones it did ("gather": father).
func Swaps(word string) []string {
	if editAlphabet(word) == "" {
		return nil
	}
	var out []string
	for _, v := range swaps([]rune(word)) {
		if s := string(v); s != word && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// swaps returns w with each two neighbours swapped.
func swaps(w []rune) [][]rune {
	var out [][]rune
	for i := 0; i+1 < len(w); i++ {
		v := append([]rune{}, w...)
		v[i], v[i+1] = v[i+1], v[i]
		out = append(out, v)
	}
	return out
}

// maxTypos is how many words of a search Typos picks.
const maxTypos = 2

// joined reports whether w is two of words written as one.
func joined(w string, words []string) bool {
	for k := 1; k < len(w); k++ {
		if slices.Contains(words, w[:k]) && slices.Contains(words, w[k:]) {
			return true
		}
	}
	return false
}

// A Typo is a word of a search to correct: its index, and the words it may have meant.
type Typo struct {
	At    int
	Edits []string
}

// Typos returns the words of a search to correct, given which matched something in the
// searched scope: the longest two that match nothing and have Edits, longest first, but
// for a word that is two others of the search joined (a compound the search added for
// them, "roadtrip" beside road and trip: its parts are what was typed). When
// no word matched, each may have meant any of its Edits; when some did, only its Swaps
// (a word can match nothing because the chat never used it, and a letter left out or
// changed turns most words into others: "gather", father). Each costs its stores up to
// a few hundred lookups of its edits.
func Typos(words []string, matched []bool) []Typo {
	edits := Edits
	if slices.Contains(matched, true) {
		edits = Swaps
	}
	var at []int
	for i, w := range words {
		if !matched[i] && editAlphabet(w) != "" && !joined(w, words) {
			at = append(at, i)
		}
	}
	slices.SortStableFunc(at, func(a, b int) int {
		return cmp.Compare(utf8.RuneCountInString(words[b]), utf8.RuneCountInString(words[a]))
	})
	out := make([]Typo, 0, min(len(at), maxTypos))
	for _, i := range at[:min(len(at), maxTypos)] {
		out = append(out, Typo{At: i, Edits: edits(words[i])})
	}
	return out
}
