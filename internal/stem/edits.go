package stem

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

const (
	minEditRunes = 5
	maxEditRunes = 12
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
// the stores' Typos). A word of fewer than 5 or more than 12 letters has none (one edit
// from a short word is too many others), nor one with digits or not all Latin or all
// Cyrillic.
func Edits(word string) []string {
	alphabet := editAlphabet(word)
	if alphabet == "" {
		return nil
	}
	w, letters := []rune(word), []rune(alphabet)
	seen := map[string]bool{word: true}
	var out []string
	add := func(rs []rune) {
		if s := string(rs); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for i := range w { // a letter left out
		add(append(append([]rune{}, w[:i]...), w[i+1:]...))
	}
	for i := 0; i+1 < len(w); i++ { // two neighbours swapped
		v := append([]rune{}, w...)
		v[i], v[i+1] = v[i+1], v[i]
		add(v)
	}
	for i := range w { // a letter changed
		for _, l := range letters {
			v := append([]rune{}, w...)
			v[i] = l
			add(v)
		}
	}
	for i := 0; i <= len(w); i++ { // a letter added
		for _, l := range letters {
			add(append(append(append([]rune{}, w[:i]...), l), w[i:]...))
		}
	}
	return out
}

// maxTypos is how many words of a search Typos picks.
const maxTypos = 2

// Typos returns the indexes of the words of a search to correct when it finds nothing:
// the longest two that have Edits, longest first. Each costs its stores a few hundred
// lookups of its edits.
func Typos(words []string) []int {
	var out []int
	for i, w := range words {
		if editAlphabet(w) != "" {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		return cmp.Compare(utf8.RuneCountInString(words[b]), utf8.RuneCountInString(words[a]))
	})
	return out[:min(len(out), maxTypos)]
}
