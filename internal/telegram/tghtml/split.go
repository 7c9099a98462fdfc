package tghtml

import (
	"strings"
	"unicode"
)

// MaxMessageLen is Telegram's limit on a text message: 4096 characters after entity parsing.
const MaxMessageLen = 4096

// Split cuts html (as produced by Format) into parts of at most limit characters each, where a
// character is what Telegram counts: a Unicode code point of the text after entity parsing
// (tags removed, &lt; counting as one).
//
// A part ends at the last paragraph boundary (blank line) that fits, failing that at the last
// line boundary, then the last space, and only as a last resort anywhere else, even then not
// between a character and a combining mark, variation selector, skin-tone modifier or
// zero-width joiner that follows it. No cut falls inside a tag or an entity. Elements open at a
// cut are closed at the end of the part and reopened, with the same attributes, at the start of
// the next, so each part is well-formed on its own if html is. Whitespace at a cut is dropped,
// as Telegram would trim it anyway, except the indentation of a part's first line inside
// <pre>, which Telegram keeps; parts are never empty or all whitespace.
//
// Split returns nil if html has no visible text. It panics if limit < 1.
func Split(html string, limit int) []string {
	return split(html, lexHTML(html), limit)
}

// SplitPlain cuts text, to be sent without parse_mode, into parts of at most limit code points
// each, choosing cuts as Split does. It returns nil if text is all whitespace and panics if
// limit < 1.
func SplitPlain(text string, limit int) []string {
	return split(text, lexPlain(text), limit)
}

// split cuts src, lexed into units, into parts; see Split.
func split(src string, units []unit, limit int) []string {
	if limit < 1 {
		panic("tghtml: split limit must be positive")
	}
	var (
		parts []string
		open  []unit // tags open at units[i]
		win   []int  // unit indices of the characters considered for the current part
	)
	for i := 0; ; {
		// Whitespace at the start of a part is dropped, except the indentation of a first line
		// of code; tags before the first character are tracked and reopened.
		skipped := i
		for i < len(units) && (units[i].tag || unicode.IsSpace(units[i].r)) {
			if units[i].tag {
				open = apply(open, src, units[i])
			}
			i++
		}
		if i == len(units) {
			return parts
		}
		first, lead := i, 0 // the first visible character; indentation kept before it
		if inPre(open, src) {
			for i > skipped && lead < limit-1 && !units[i-1].tag && (units[i-1].r == ' ' || units[i-1].r == '\t') {
				i--
				lead++
			}
		}
		win = win[:0]
		j := i
		for ; j < len(units) && len(win) <= limit; j++ {
			if !units[j].tag {
				win = append(win, j)
			}
		}
		cut := len(units) // unit index where the part ends (exclusive, before trimming)
		if len(win) > limit {
			cut = win[chooseCut(units, win, lead+1, j)]
		}
		end := cut
		for end > first && (units[end-1].tag || unicode.IsSpace(units[end-1].r)) {
			end--
		}
		var b strings.Builder
		for _, u := range open {
			b.WriteString(src[u.start:u.end])
		}
		b.WriteString(src[units[i].start:units[end-1].end])
		for _, u := range units[i:end] {
			if u.tag {
				open = apply(open, src, u)
			}
		}
		for k := len(open) - 1; k >= 0; k-- {
			name, _ := tagName(src[open[k].start:open[k].end])
			b.WriteString("</" + name + ">")
		}
		parts = append(parts, b.String())
		i = end
	}
}

// inPre reports whether open holds a <pre>. Telegram keeps whitespace at the start of a
// message if an entity starts there, so a part that starts inside a code block can keep its
// first line's indentation.
func inPre(open []unit, src string) bool {
	for _, u := range open {
		if name, _ := tagName(src[u.start:u.end]); name == "pre" {
			return true
		}
	}
	return false
}

// chooseCut picks where to end a part given win, the unit indices of limit+1 characters from
// the part's start (the last one does not fit), and next, the unit index after win's last.
// It returns k in [least, limit]: the part keeps win[:k]; win[k] is either dropped whitespace
// or the first character of the next part.
func chooseCut(units []unit, win []int, least, next int) int {
	limit := len(win) - 1
	para, line, word := 0, 0, 0
	for k := least; k <= limit; k++ {
		switch r := units[win[k]].r; {
		case r == '\n':
			line = k
			if units[win[k-1]].r == '\n' {
				para = k
			}
		case unicode.IsSpace(r) && !noBreak(r):
			word = k
		}
	}
	if line == limit && para != limit && nextChar(units, next) == '\n' {
		para = limit
	}
	switch {
	case para > 0:
		return para
	case line > 0:
		return line
	case word > 0:
		return word
	}
	for k := limit; k >= least; k-- {
		if !joined(units, win, k) {
			return k
		}
	}
	return limit
}

// nextChar is the first character at or after units[i], or -1.
func nextChar(units []unit, i int) rune {
	for ; i < len(units); i++ {
		if !units[i].tag {
			return units[i].r
		}
	}
	return -1
}

// noBreak reports whether r is a space that must not be broken at.
func noBreak(r rune) bool { return r == '\u00a0' || r == '\u2007' || r == '\u202f' }

// joined reports whether the characters win[k-1] and win[k] belong to one user-perceived
// character (an approximation of Unicode grapheme clusters good enough for emoji and
// combining accents), so a hard cut between them would break it.
func joined(units []unit, win []int, k int) bool {
	a, b := units[win[k-1]].r, units[win[k]].r
	switch {
	case a == '\u200d' || b == '\u200d': // zero-width joiner
		return true
	case unicode.In(b, unicode.Mn, unicode.Me, unicode.Mc):
		return true
	case b >= 0xfe00 && b <= 0xfe0f, b >= 0xe0100 && b <= 0xe01ef: // variation selectors
		return true
	case b >= 0x1f3fb && b <= 0x1f3ff: // skin-tone modifiers
		return true
	case b >= 0xe0020 && b <= 0xe007f: // tag characters (subdivision flags)
		return true
	case isRegional(a) && isRegional(b):
		// Flags are pairs of regional indicators: a and b pair up if an odd number of them
		// run up to and including a.
		n := 0
		for i := k - 1; i >= 0 && isRegional(units[win[i]].r); i-- {
			n++
		}
		return n%2 == 1
	}
	return false
}

func isRegional(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }

// apply updates the stack of open tags for the tag u.
func apply(open []unit, src string, u unit) []unit {
	tag := src[u.start:u.end]
	name, end := tagName(tag)
	if !end {
		if selfClosing(tag) {
			return open
		}
		return append(open, u)
	}
	for k := len(open) - 1; k >= 0; k-- {
		if n, _ := tagName(src[open[k].start:open[k].end]); n == name {
			return open[:k]
		}
	}
	return open
}
