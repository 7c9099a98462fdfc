package memory

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"github.com/mynah-ai/mynah/internal/stem"
)

// Terms splits text into the words a keyword search looks for: lower case, split at every
// rune that is not a letter, digit or combining mark (as SQLite's unicode61 tokenizer
// splits), without stop words, one-letter words or repeats, in their first order. An
// apostrophe between two Cyrillic letters stays in its word (Ukrainian пам'ять is one
// word). The backend stems and folds the words itself (for Russian and Ukrainian with
// internal/stem); terms go to it as plain words.
func Terms(text string, stop map[string]bool) []string {
	words := splitWords(strings.ToLower(text))
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

// splitWords splits text into its words (see Terms).
func splitWords(text string) []string {
	var out []string
	start := -1
	prev := rune(0)
	for i, r := range text {
		switch {
		case stem.IsWordRune(r):
			if start < 0 {
				start = i
			}
		case start >= 0 && stem.IsApostrophe(r) && unicode.Is(unicode.Cyrillic, prev) && cyrillicAt(text, i+utf8.RuneLen(r)):
			// inside a Cyrillic word
		case start >= 0:
			out = append(out, text[start:i])
			start = -1
		}
		prev = r
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

// endUp is "end up" in a question, in any of its forms: "what did the camps end up
// costing me?", "did we end up going?". It asks what came of a thing, and its "end"
// would find every "ended things with" and "the end of March" of a chat, so a search
// leaves it out; so is "get up to" ("what did I get up to in September?"), which asks
// what one did, as "do" does, and whose "get" would find every "get" of the time.
var endUp = regexp.MustCompile(`(?i)\b(?:end(?:s|ed|ing)?\s+up|(?:get|gets|got|getting|gotten)\s+up\s+to)\b`)

// cyrillicAt reports whether a Cyrillic letter starts text at i.
func cyrillicAt(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.Is(unicode.Cyrillic, r)
}

// talkWord reports whether w, a word of a question naming a time, asks what was said or
// done then rather than about a topic: "what did we talk about yesterday?", "what
// happened last week?", "о чём говорили вчера?". Such a question wants the time's
// messages, whatever they say, not the messages that hold "talk" said at other times.
// English words by their stems, Russian and Ukrainian ones by their forms.
func talkWord(w string) bool {
	if isASCII(w) {
		return talkStems[english.Stem(w, false)]
	}
	return talkForms[w]
}

// metaWord reports whether w, a word of a question, speaks of the conversation itself
// rather than of what it was about: "which hotel did you recommend in our previous
// conversation?", "as I wondered earlier". The answer rarely holds such a word, and the
// messages that do are other talk about talking. Not the words of telling (say, tell,
// mention, remind, remember): LoCoMo asks of "a reminder of", where they are content.
func metaWord(w string) bool { return isASCII(w) && metaStems[english.Stem(w, false)] }

var metaStems = map[string]bool{"recal": true, "previous": true, "earlier": true,
	"convers": true, "wonder": true}

var talkStems = map[string]bool{"talk": true, "say": true, "said": true, "tell": true, "told": true, "discuss": true,
	"chat": true, "happen": true, "mention": true, "speak": true, "spoke": true, "new": true, "go": true, "up": true}

var talkForms = map[string]bool{
	// Russian
	"говорили": true, "говорил": true, "говорила": true, "сказал": true, "сказала": true, "сказали": true,
	"обсуждали": true, "обсуждал": true, "обсуждала": true, "случилось": true, "произошло": true,
	"болтали": true, "писали": true, "писал": true, "писала": true, "нового": true,
	"разговаривали": true, "рассказывал": true, "рассказывала": true, "рассказывали": true,
	// doing, which English leaves to its stop words ("what did we do yesterday?")
	"делал": true, "делала": true, "делали": true, "делаем": true, "делать": true, "сделали": true,
	"занимались": true,
	// Ukrainian
	"казав": true, "казала": true, "казали": true, "сказав": true, "обговорювали": true, "сталося": true,
	"трапилося": true, "відбулося": true, "писав": true, "розмовляли": true, "говорив": true,
	"розповідав": true, "розповідала": true, "розповідали": true,
	"робив": true, "робила": true, "робили": true, "робимо": true, "робитимемо": true, "зробили": true,
	"займалися": true,
}

// maxWords is how many words of a long text a search looks for: its most telling
// (tellingWords). A question has at most a dozen or so once its stop words are left out
// (LoCoMo's 1,986: 24 words at most, stop words included); a pasted article, or a long
// answer that an automatic recall searches by, has hundreds, and each word is one more
// count to probe and one more weight in every match (see termcount.MaxRanked). Over
// 100,000 messages, mynah memory search by 400 words of a conversation took 0.69 s, by
// its 32 most telling 0.13 s, finding the conversation.
const maxWords = 32

// tellingWords returns text itself when it has at most n searchable words (Terms), and
// otherwise its n most telling, in their first order, as a text of words: the longest,
// a word always written with a capital (a name, not a sentence's first word) or holding
// a digit counting as four letters longer, as such words are rarer.
func tellingWords(text string, stop map[string]bool, n int) string {
	terms := Terms(text, stop)
	if len(terms) <= n {
		return text
	}
	capital := make(map[string]bool, len(terms)) // not yet seen in lower case
	for _, w := range splitWords(text) {
		lw := strings.ToLower(w)
		if first, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(first) {
			if _, seen := capital[lw]; !seen {
				capital[lw] = true
			}
		} else {
			capital[lw] = false
		}
	}
	weight := func(w string) int {
		n := utf8.RuneCountInString(w)
		if capital[w] {
			n += 4
		}
		if strings.ContainsFunc(w, unicode.IsDigit) {
			n += 4
		}
		return n
	}
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return weight(terms[b]) - weight(terms[a]) })
	order = order[:n]
	slices.Sort(order)
	kept := make([]string, n)
	for i, j := range order {
		kept[i] = terms[j]
	}
	return strings.Join(kept, " ")
}
