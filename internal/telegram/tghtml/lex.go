package tghtml

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// unit is one indivisible piece of Telegram HTML: a tag, or one character as Telegram counts
// them (a code point of the parsed text, written either literally or as an entity).
type unit struct {
	start, end int32 // byte range in the source
	r          rune  // the character; unused for tags
	tag        bool
}

// lexHTML cuts html into units. Text that does not lex as a tag or entity (a stray < or &)
// counts as the literal character, as it reads.
func lexHTML(html string) []unit {
	units := make([]unit, 0, len(html))
	for i := 0; i < len(html); {
		switch html[i] {
		case '<':
			if n := tagLen(html[i:]); n > 0 {
				units = append(units, unit{start: int32(i), end: int32(i + n), tag: true})
				i += n
				continue
			}
		case '&':
			if r, n := entity(html[i:]); n > 0 {
				units = append(units, unit{start: int32(i), end: int32(i + n), r: r})
				i += n
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(html[i:])
		units = append(units, unit{start: int32(i), end: int32(i + n), r: r})
		i += n
	}
	return units
}

// lexPlain cuts text into one unit per code point.
func lexPlain(text string) []unit {
	units := make([]unit, 0, len(text))
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		units = append(units, unit{start: int32(i), end: int32(i + n), r: r})
		i += n
	}
	return units
}

// tagLen is the length of the tag at the start of s (which starts with '<'), or 0 if s does
// not start with a tag. Quoted attribute values may contain '>'.
func tagLen(s string) int {
	if len(s) < 3 || !(isASCIILetter(s[1]) || s[1] == '/' && isASCIILetter(s[2])) {
		return 0
	}
	var quote byte
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i + 1
		case c == '<':
			return 0
		}
	}
	return 0
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// tagName returns the lower-case element name of tag and whether it is an end tag.
func tagName(tag string) (name string, end bool) {
	s := tag[1:]
	if s[0] == '/' {
		s, end = s[1:], true
	}
	n := strings.IndexAny(s, " \t\r\n/>")
	return strings.ToLower(s[:n]), end
}

// selfClosing reports whether tag ends in "/>" and so opens nothing.
func selfClosing(tag string) bool { return strings.HasSuffix(tag, "/>") }

// entity decodes the character reference at the start of s (which starts with '&') the way
// Telegram does: &lt; &gt; &amp; &quot; and numeric references. It returns 0 for anything
// else, which Telegram shows literally.
func entity(s string) (rune, int) {
	semi := strings.IndexByte(s, ';')
	if semi < 2 || semi > 10 {
		return 0, 0
	}
	switch name := s[1:semi]; name {
	case "lt":
		return '<', semi + 1
	case "gt":
		return '>', semi + 1
	case "amp":
		return '&', semi + 1
	case "quot":
		return '"', semi + 1
	default:
		if name[0] != '#' || len(name) < 2 {
			return 0, 0
		}
		digits, base := name[1:], 10
		if digits[0] == 'x' || digits[0] == 'X' {
			digits, base = digits[1:], 16
		}
		if digits == "" || digits[0] == '+' || digits[0] == '-' {
			return 0, 0
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil || n == 0 || !utf8.ValidRune(rune(n)) {
			return 0, 0
		}
		return rune(n), semi + 1
	}
}
