package memory

import (
	"strings"
	"unicode"
)

// Terms splits text into the words a keyword search looks for: lower case, split at every
// rune that is not a letter, digit or combining mark (as SQLite's unicode61 tokenizer
// splits), without stop words, one-letter words or repeats, in their first order. The
// backend stems and folds diacritics itself; terms go to it as plain words.
func Terms(text string, stop map[string]bool) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
	seen := make(map[string]bool, len(words))
	out := words[:0]
	for _, w := range words {
		if stop[w] || seen[w] || (len([]rune(w)) < 2 && !unicode.IsDigit([]rune(w)[0])) {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}
