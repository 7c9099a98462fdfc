// Package stem reduces the Russian and Ukrainian words of a text to their stems, so that a
// keyword index finds «машину» for «машина» and «у Львові» for «Львів». It is what the
// stores put in their full-text indexes and what they look up, the same function on both
// sides; it knows nothing of any store.
//
// Each word is stemmed by its own script and language, never by a setting of the chat:
//
//   - A word without Cyrillic letters is left as it is: the index's own tokenizer treats
//     Latin words (SQLite's porter stemmer), so English search is unchanged.
//   - A Cyrillic word with a letter only Ukrainian has (і ї є ґ) is Ukrainian; one with a
//     letter only Russian has (ы э ъ ё) is Russian. A word with neither («машина»,
//     «потягом») takes the language of the text around it, Russian when that is unclear
//     too; a query word with neither is looked up in both languages (see Query).
//   - Russian words go through the Snowball Russian stemmer (github.com/kljensen/snowball);
//     Ukrainian ones through this package's own light stemmer (ukrainian.go), as no
//     maintained Go stemmer for Ukrainian exists.
//
// Before stemming a Cyrillic word is folded: lower case; ё as е (Russian writes both);
// ґ as г (much Ukrainian is typed without ґ); ї as і in the stem (typed without the dots);
// apostrophes inside the word (' ’ ʼ ‘ ` ´) dropped, so пам'ять, пам’ять and памʼять are
// one word; stress marks (combining marks, and Latin á é ó ý typed for а́ е́ о́ у́) dropped;
// Latin letters that look like Cyrillic ones (a c e i ï o p x y, typed on the wrong
// keyboard layout) read as those. A
// modifier apostrophe ʼ outside Cyrillic words becomes ', which the index splits at, as it
// does at ' and ’. Nothing else is folded: и and і, е and є, и and й, ы and и are
// different letters in these languages.
package stem

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/russian"
)

// lang is the language a Cyrillic word is stemmed in.
type lang int8

const (
	russianLang lang = iota
	ukrainianLang
)

// Text returns text as a keyword index holds it: each Cyrillic word replaced by its folded
// stem, the rest unchanged, followed by the parts of its Latin compound words (PureGym:
// Pure Gym; see compoundParts). Words are split where the index's tokenizer splits them
// (at every rune that is not a letter, digit or combining mark), except that an
// apostrophe between two letters of a Cyrillic word is part of it. Text without Cyrillic
// letters, ʼ or compound words is returned as it is, at the cost of two scans.
func Text(text string) string {
	parts := compoundParts(text)
	if !mayChange(text) {
		return text + parts
	}
	return rewrite(text, textLang(text)) + parts
}

// Query returns what to look up for one query word (or a few): Text of it, or for a
// Cyrillic word of no clear language its Russian and its Ukrainian stems, so that it
// finds both a Russian and a Ukrainian message; and the stems of its forms with or
// without a fleeting vowel (see fleetingForms) and of a short word's other forms (see
// shortForms). Each alternative is to be matched as a phrase; an empty word gives none.
func Query(word string) []string {
	if strings.TrimSpace(word) == "" {
		return nil
	}
	if !mayChange(word) {
		return []string{word}
	}
	ru, uk := rewrite(word, russianLang), rewrite(word, ukrainianLang)
	out := []string{ru}
	if uk != ru {
		out = append(out, uk)
	}
	out = append(out, shortForms(word, out)...)
	for _, f := range fleetingForms(word) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// fleetingVowels are, by the consonant a stem ends in, the vowels that come and go
// before it between a word's forms: «подарок» and «подарки», «кошка» and «кошек»,
// «поїздка» and «поїздок», «отец» and «отца», «сестра» and «сестёр», «уголь» and
// «угли», «камень» and «камня», «вікно» and «вікон». No stemmer without a dictionary
// tells a vowel that drops from one that stays («урок», «урока»), so the index keeps each
// form's own stem and a query looks up both: a question that counts («сколько кошек?»,
// «скільки поїздок?») asks in the plural that drops or puts in the vowel.
var fleetingVowels = map[rune]string{'к': "ое", 'л': "ое", 'н': "ое", 'ц': "е", 'р': "е"}

// fleetingForms returns the stems of a Cyrillic word's other forms, with or without the
// fleeting vowel of its stem (see fleetingVowels), in each language the word may be in;
// none for a phrase or a word with digits.
func fleetingForms(word string) []string {
	w := strings.TrimSpace(word)
	if !mayChange(w) || strings.IndexFunc(w, func(r rune) bool { return !IsWordRune(r) && !IsApostrophe(r) }) >= 0 {
		return nil
	}
	folded, asRussian, digits := fold(w, russianLang)
	if digits || len(folded) < 3 {
		return nil
	}
	var out []string
	if asRussian == russianLang { // Russian letters, or no letter of only one language
		for _, v := range fleeting([]rune(stemRussian(slices.Clone(folded)))) {
			out = append(out, string(v))
		}
	}
	if _, asUkrainian, _ := fold(w, ukrainianLang); asUkrainian == ukrainianLang {
		// Ukrainian letters, or none of either: its base before the alternations, whose
		// vowel is the stem's last only once the fleeting one is gone («кішок», кішк: кошк)
		for _, v := range fleeting(ukBase(slices.Clone(folded))) {
			out = append(out, noDots(string(ukAlternations(v))))
		}
	}
	return out
}

// fleeting returns stem with its fleeting vowel dropped, when it has one before its last
// consonant, or else with each such vowel put in (see fleetingVowels). The stem keeps a
// vowel of its own before and three letters at least.
func fleeting(stem []rune) [][]rune {
	n := len(stem)
	if n < 3 {
		return nil
	}
	last := stem[n-1]
	vowels, ok := fleetingVowels[last]
	if !ok || !slices.ContainsFunc(stem[:n-2], isVowel) {
		return nil
	}
	if n >= 4 && strings.ContainsRune(vowels, stem[n-2]) && isConsonant(stem[n-3]) {
		return [][]rune{slices.Concat(stem[:n-2], []rune{last})}
	}
	if !isConsonant(stem[n-2]) || stem[n-2] == 'й' {
		return nil
	}
	var out [][]rune
	for _, v := range vowels {
		out = append(out, slices.Concat(stem[:n-1], []rune{v, last}))
	}
	return out
}

// isVowel reports whether r is a Russian or Ukrainian vowel (folded).
func isVowel(r rune) bool { return strings.ContainsRune("аеиоуыэюяєіїё", r) }

// isConsonant reports whether r is a Cyrillic letter that is neither a vowel nor a sign.
func isConsonant(r rune) bool {
	return isCyrillic(r) && !isVowel(r) && r != 'ь' && r != 'ъ' && r != '\''
}

// shortEndings are the vowel endings a word of three letters takes («Оля», «Олі», «Олю»,
// «Оле»; «Іра», «Іри»).
const shortEndings = "аяіиуюео"

// shortForms returns, for a Cyrillic word of three letters that ends in a vowel, what its
// other forms of three letters are indexed as, besides have: Ukrainian keeps such a word's
// ending (an ending never leaves fewer than three letters: «Київ» is not ки + їв), so that
// «що подарували Олі?» would find neither «Оля» nor «Олю» of a Ukrainian chat (Russian
// stems them all «ол»). A short name is the commonest such word, and its forms are the
// ones people ask with.
func shortForms(word string, have []string) []string {
	w := []rune(strings.TrimSpace(word))
	if len(w) != 3 || !isCyrillic(w[0]) || !isCyrillic(w[1]) || !strings.ContainsRune(shortEndings, lower(w[2])) {
		return nil
	}
	var out []string
	for _, e := range shortEndings {
		form := string(w[:2]) + string(e)
		for _, l := range []lang{ukrainianLang, russianLang} {
			if f := rewrite(form, l); !slices.Contains(have, f) && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// IsApostrophe reports whether r is one of the apostrophes that join the two parts of a
// Ukrainian word (пам'ять): ' ’ ʼ ‘ ` ´.
func IsApostrophe(r rune) bool {
	switch r {
	case '\'', '’', 'ʼ', '‘', '`', '´':
		return true
	}
	return false
}

// IsWordRune reports whether r is part of a word for the index's tokenizer: a letter, a
// digit or a combining mark.
func IsWordRune(r rune) bool {
	switch {
	case r < 0x80:
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	case 0x400 <= r && r <= 0x481, 0x48A <= r && r <= 0x52F: // Cyrillic letters
		return true
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// isCyrillic reports whether r is a Cyrillic letter.
func isCyrillic(r rune) bool {
	return 0x400 <= r && r <= 0x52F || unicode.Is(unicode.Cyrillic, r)
}

// lower is unicode.ToLower, quicker for the Cyrillic and ASCII letters.
func lower(r rune) rune {
	switch {
	case 'А' <= r && r <= 'Я':
		return r + 0x20
	case 'Ѐ' <= r && r <= 'Џ':
		return r + 0x50
	case r < 0x80:
		if 'A' <= r && r <= 'Z' {
			return r + 0x20
		}
		return r
	case 'а' <= r && r <= 'џ':
		return r
	}
	return unicode.ToLower(r)
}

// mayChange reports whether text has a rune Text may change: a Cyrillic letter (U+0400 to
// U+052F, lead bytes 0xD0 to 0xD4) or ʼ (U+02BC, lead byte 0xCA).
func mayChange(text string) bool {
	for i := 0; i < len(text); i++ {
		if b := text[i]; b == 0xCA || (b >= 0xD0 && b <= 0xD4) {
			return true
		}
	}
	return false
}

// textLang is the language of text's Cyrillic words of no clear language: Ukrainian when
// more of its letters are Ukrainian-only than Russian-only, else Russian.
func textLang(text string) lang {
	uk, ru := 0, 0
	for _, r := range text {
		switch r {
		case 'і', 'ї', 'є', 'ґ', 'І', 'Ї', 'Є', 'Ґ':
			uk++
		case 'ы', 'э', 'ъ', 'ё', 'Ы', 'Э', 'Ъ', 'Ё':
			ru++
		}
	}
	if uk > ru {
		return ukrainianLang
	}
	return russianLang
}

// rewrite is Text with ambiguous words stemmed in lang.
func rewrite(text string, ambiguous lang) string {
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !IsWordRune(r) {
			b.WriteString(text[i : i+n])
			i += n
			continue
		}
		end := wordEnd(text, i)
		writeWord(&b, text[i:end], ambiguous)
		i = end
	}
	return b.String()
}

// wordEnd returns where the word starting at i ends: after its last word rune, an
// apostrophe counting as one when a letter follows it and a letter precedes it.
func wordEnd(text string, i int) int {
	prev := rune(0)
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if IsWordRune(r) {
			prev = r
			i += n
			continue
		}
		if IsApostrophe(r) && unicode.IsLetter(prev) {
			if next, _ := utf8.DecodeRuneInString(text[i+n:]); unicode.IsLetter(next) {
				prev = r
				i += n
				continue
			}
		}
		break
	}
	return i
}

// writeWord writes word as the index holds it.
func writeWord(b *strings.Builder, word string, ambiguous lang) {
	cyrillic := false
	for _, r := range word {
		if isCyrillic(r) {
			cyrillic = true
			break
		}
	}
	if !cyrillic {
		for _, r := range word {
			if r == 'ʼ' {
				r = '\''
			}
			b.WriteRune(r)
		}
		return
	}
	folded, l, digits := fold(word, ambiguous)
	if digits || len(folded) < 2 {
		b.WriteString(noDots(string(slices.DeleteFunc(folded, func(r rune) bool { return r == '\'' }))))
		return
	}
	b.WriteString(stems.get(folded, l))
}

// stemCache keeps the stems of recent words: a chat's words repeat, and the Russian
// stemmer costs ~2 µs a word. It is emptied when full, so it stays bounded.
type stemCache struct {
	mu sync.Mutex
	m  map[cacheKey]string
}

type cacheKey struct {
	word string
	lang lang
}

// cacheSize bounds the words cached (a few MB at most).
const cacheSize = 50_000

var stems stemCache

// get returns the stem of the folded word w in l.
func (c *stemCache) get(w []rune, l lang) string {
	key := cacheKey{string(w), l}
	c.mu.Lock()
	s, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return s
	}
	if l == ukrainianLang {
		s = noDots(string(stemUkrainian(w)))
	} else {
		s = stemRussian(w)
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= cacheSize {
		c.m = make(map[cacheKey]string, 1024)
	}
	c.m[key] = s
	c.mu.Unlock()
	return s
}

// stemRussian is the Snowball Russian stem of a folded word, except that a stem would
// keep fewer than three letters of a longer word, the word without a one-letter ending
// is its stem: Snowball reads «Киев» as ки + ев (a plural ending), which «Киева» and «в
// Киеве» (киев) would not find.
func stemRussian(w []rune) string {
	w = slices.DeleteFunc(w, func(r rune) bool { return r == '\'' })
	s := russian.Stem(string(w), true)
	if len(w) < 4 || utf8.RuneCountInString(s) >= 3 {
		return s
	}
	if strings.ContainsRune("аеийоуыьэюя", w[len(w)-1]) {
		w = w[:len(w)-1]
	}
	return string(w)
}

// fold lower-cases a Cyrillic word and folds it (see the package documentation), and
// tells its language (ambiguous when it has no letter of only one language) and whether it
// has digits.
func fold(word string, ambiguous lang) (out []rune, l lang, digits bool) {
	out = make([]rune, 0, len(word))
	uk, ru := false, false
	for _, r := range word {
		r = lower(r)
		switch r {
		case 'і', 'ї', 'є':
			uk = true
		case 'ґ':
			uk, r = true, 'г'
		case 'ы', 'э', 'ъ':
			ru = true
		case 'ё':
			ru, r = true, 'е'
		case 'ѐ':
			r = 'е'
		case 'ѝ':
			r = 'и'
		case 'a', 'á':
			r = 'а'
		case 'c':
			r = 'с'
		case 'e', 'é':
			r = 'е'
		case 'i': // Russian has no і: this is Ukrainian typed on a Russian layout
			uk, r = true, 'і'
		case 'ï':
			uk, r = true, 'ї'
		case 'o', 'ó':
			r = 'о'
		case 'p':
			r = 'р'
		case 'x':
			r = 'х'
		case 'y', 'ý':
			r = 'у'
		}
		switch {
		case IsApostrophe(r): // Russian writes ъ there: the word is Ukrainian
			uk, r = true, '\'' // one apostrophe for all; the stemmers drop it
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsDigit(r):
			digits = true
		}
		out = append(out, r)
	}
	switch {
	case uk && !ru:
		l = ukrainianLang
	case ru && !uk:
		l = russianLang
	default:
		l = ambiguous
	}
	return out, l, digits
}

// noDots folds ї to і.
func noDots(s string) string { return strings.ReplaceAll(s, "ї", "і") }
