package stem

import "slices"

// The Ukrainian stemmer. No maintained Go stemmer for Ukrainian exists, so this is a light
// suffix stripper of its own, shaped like the Snowball Russian algorithm
// (snowballstem.org/algorithms/russian) with Ukrainian endings. It wants a lower-case,
// folded word (see fold) and keeps ї, which the caller folds after. Its rules:
//
//  1. RV is the part of the word after its first vowel (а е є и і ї о у ю я). Only an
//     ending wholly inside RV is removed, and only when three letters stay, so a stem
//     keeps its first vowel: «Львів» and «Київ» keep their «ів» and «їв», «лікарів» loses
//     it. The word's apostrophe (kept as ' by fold until the ending is found) is dropped
//     after: a verb ending does not start right after it (пам'ять is not пам + ять).
//  2. One ending is removed, the longest that fits, tried by kind in this order, the first
//     kind that has one winning:
//     a. gerund (-ючи, -учи, -ачи, -ячи, -ивши, -івши, and -вши after а or я);
//     b. then, without ending the step, reflexive -ся or -сь;
//     c. adjective (-ий -ого -ому -им -ою -ої -их -ими -ій -ім -іх -іми, and the soft
//     forms -ього -ьому -ьої -ьою);
//     d. verb: after а or я, which stays (читати, читав, читала, читає → чита):
//     -ти -в -ла -ло -ли -й -йте -ймо -є -єш -ємо -єте -ють -єть and the future
//     -тиму…-тимуть; anywhere, with its vowel: -ив -ила… -іти -іть -ать -ять -уть -ють
//     -еш -емо -ете -еть, -ую -ує -ують… (купую, купує → куп) and -ув -ула -ути;
//     e. noun: -ами -ями -ах -ях -ам -ям -ові -еві -ів -їв -ей -ом -ем -єм -ою -ею -єю,
//     -ія -ії -ію -ією -іями…, and the one-letter endings -а -я -у -ю -о -е -є -и -і -ї
//     -й -ь.
//  3. A stem of a verb in -увати/-ювати loses -ува/-юва (купувати → куп, as купую).
//  4. A final soft sign goes (кінь → кін).
//  5. The vowel alternation of closed syllables is undone: when the stem's last vowel is і
//     or ї with one or two consonants after it, і reads as о and ї as є, so «Львів» and
//     «Львова», «кінь» and «коня», «Київ» and «Києва» share a stem (львов, кон, києв).
//     Every form of a word gets the same treatment, so a word without the alternation
//     («ліс», «лісу») still has one stem (лос).
//  6. The consonant alternation before -і is undone the same way: a stem ending in з, ц or
//     с ends in г, к or х instead, so «у потязі», «на руці», «у книзі» find «потяг»,
//     «рука», «книга» (and «ліс» is лох, «вулиця» вулик: one stem for all forms still).
//
// Known misses, as with every stemmer without a dictionary: consonant alternations of verbs
// (бігти/біжу, робити/роблю), a vowel that drops (день/дня, ганок/ганку: a query looks up
// the other form's stem, see fleetingForms, but the index keeps each its own), nouns whose stem
// ends in -ат- read as verbs in some forms (кімнати → кімна, кімнату → кімнат), and place
// names in -ів whose other forms keep -ов- (Харків → харк, Харкова → харков).
func stemUkrainian(w []rune) []rune {
	if len(w) <= 2 {
		return w
	}
	return ukAlternations(ukBase(w))
}

// ukBase is a word without its ending (rules 1–4), before the alternations.
func ukBase(w []rune) []rune {
	rv := len(w)
	for i, r := range w {
		if isUkVowel(r) {
			rv = i + 1
			break
		}
	}
	w = slices.DeleteFunc(ukStep1(w, rv), func(r rune) bool { return r == '\'' })
	if n := len(w); n-3 >= rv && (endsWith(w, "ува") || endsWith(w, "юва")) {
		w = w[:n-3]
	}
	if n := len(w); n > rv && w[n-1] == 'ь' {
		w = w[:n-1]
	}
	return w
}

// ukAlternations undoes the alternations of a base (rules 5 and 6): the stem.
func ukAlternations(w []rune) []rune {
	w = alternate(w)
	if n := len(w); n > 0 {
		switch w[n-1] {
		case 'з':
			w[n-1] = 'г'
		case 'ц':
			w[n-1] = 'к'
		case 'с':
			w[n-1] = 'х'
		}
	}
	return w
}

// ukStep1 removes the word's ending (rules 2a–e).
func ukStep1(w []rune, rv int) []rune {
	if n := longest(w, rv, ukGerund, false); n > 0 {
		return w[:len(w)-n]
	}
	if n := longest(w, rv, ukGerundA, true); n > 0 {
		return w[:len(w)-n]
	}
	if n := longest(w, rv, ukReflexive, false); n > 0 {
		w = w[:len(w)-n]
	}
	if n := longest(w, rv, ukAdjective, false); n > 0 {
		return w[:len(w)-n]
	}
	a, b := longest(w, rv, ukVerbA, true), longest(w, rv, ukVerb, false)
	if n := max(a, b); n > 0 && w[len(w)-n-1] != '\'' {
		return w[:len(w)-n]
	}
	if n := longest(w, rv, ukNoun, false); n > 0 {
		return w[:len(w)-n]
	}
	return w
}

// longest returns the length of the longest of endings that w ends with inside RV (from
// rv on) leaving at least minStem runes, 0 when none; afterAYa wants а or я, also inside
// RV, before the ending.
func longest(w []rune, rv int, endings [][]rune, afterAYa bool) int {
	for _, e := range endings { // longest first
		at := len(w) - len(e)
		if at < rv || at < minStem || !slices.Equal(w[at:], e) {
			continue
		}
		if afterAYa && (at-1 < rv || (w[at-1] != 'а' && w[at-1] != 'я')) {
			continue
		}
		return len(e)
	}
	return 0
}

// alternate undoes the і/о and ї/є alternation of a stem's last closed syllable (rule 5).
func alternate(w []rune) []rune {
	last := -1
	for i := len(w) - 1; i >= 1; i-- {
		if isUkVowel(w[i]) {
			last = i
			break
		}
	}
	if last < 1 || len(w)-last-1 < 1 || len(w)-last-1 > 2 {
		return w
	}
	switch w[last] {
	case 'і':
		w[last] = 'о'
	case 'ї':
		w[last] = 'є'
	}
	return w
}

// minStem is the fewest runes an ending leaves of a word (rule 1): «Київ» is not ки + їв.
const minStem = 3

func isUkVowel(r rune) bool {
	switch r {
	case 'а', 'е', 'є', 'и', 'і', 'ї', 'о', 'у', 'ю', 'я':
		return true
	}
	return false
}

func endsWith(w []rune, suffix string) bool {
	s := []rune(suffix)
	return len(w) >= len(s) && slices.Equal(w[len(w)-len(s):], s)
}

// endings returns the endings as rune slices, longest first.
func endings(list ...string) [][]rune {
	out := make([][]rune, len(list))
	for i, e := range list {
		out[i] = []rune(e)
	}
	slices.SortStableFunc(out, func(a, b []rune) int { return len(b) - len(a) })
	return out
}

var (
	ukGerund    = endings("ючи", "учи", "ачи", "ячи", "ивши", "ившись", "івши", "івшись", "ївши", "ївшись")
	ukGerundA   = endings("вши", "вшись")
	ukReflexive = endings("ся", "сь")
	ukAdjective = endings(
		"ий", "ого", "ому", "им", "ою", "ої", "их", "ими",
		"ій", "ім", "іх", "іми", "їй", "їм", "їх", "їми",
		"ього", "ьому", "ьої", "ьою",
	)
	// ukVerbA are the verb endings that follow а or я, which stay.
	ukVerbA = endings(
		"ти", "в", "ла", "ло", "ли", "й", "йте", "ймо",
		"є", "єш", "ємо", "єте", "ють", "єть",
		"тиму", "тимеш", "тиме", "тимемо", "тимете", "тимуть",
	)
	ukVerb = endings(
		"ив", "ила", "ило", "или", "ити", "ить", "иш", "имо", "ите",
		"ів", "іла", "іло", "іли", "іти", "іть", "іш", "імо", "іте",
		"їв", "їла", "їло", "їли", "їти", "їть", "їш", "їмо", "їте",
		"ать", "ять", "уть", "ють",
		"еш", "емо", "ете", "еть",
		"ую", "уєш", "ує", "уємо", "уєте", "ують", "уєть",
		"юю", "юєш", "ює", "юємо", "юєте", "юють", "юєть",
		"ув", "ула", "уло", "ули", "ути",
	)
	ukNoun = endings(
		"ами", "ями", "ах", "ях", "ам", "ям",
		"ові", "еві", "ів", "їв", "ей",
		"ом", "ем", "єм", "ою", "ею", "єю",
		"ія", "ії", "ію", "ією", "іями", "іях", "іям",
		"а", "я", "у", "ю", "о", "е", "є", "и", "і", "ї", "й", "ь",
	)
)
