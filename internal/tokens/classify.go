package tokens

import "unicode"

// class is what a rune is for costing purposes.
type class uint8

const (
	none class = iota
	latin
	cyrillic
	otherLetter
	cjk
	digit
	space
	newline
	punct
	emoji
	mark
)

func (c class) letter() bool { return c == latin || c == cyrillic || c == otherLetter }

// group is the script group (Split) whose cost a rune of class c adds to.
func (c class) group() int {
	switch c {
	case latin:
		return Latin
	case cyrillic:
		return Cyrillic
	case cjk:
		return CJK
	case otherLetter:
		return OtherLetters
	}
	return Common
}

// classify returns the class of r. Scripts are told apart because o200k's vocabulary
// covers them unevenly; everything that is not a letter, digit, space or emoji is punct.
func classify(r rune) class {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		return latin
	case '0' <= r && r <= '9':
		return digit
	case r == ' ', r == '\t':
		return space
	case r == '\n', r == '\r':
		return newline
	case r < 0x80:
		if unicode.IsSpace(r) {
			return space
		}
		return punct
	case unicode.IsLetter(r):
		switch {
		case 0x0400 <= r && r <= 0x04FF: // the common case of the next two, made fast
			return cyrillic
		case 0x4E00 <= r && r <= 0x9FFF:
			return cjk
		case unicode.Is(unicode.Latin, r):
			return latin
		case unicode.Is(unicode.Cyrillic, r):
			return cyrillic
		case r >= 0x2E80 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r <= 0x30FF):
			return cjk
		}
		return otherLetter
	case unicode.IsMark(r):
		return mark
	case unicode.IsNumber(r):
		return digit
	case r == 0x85 || r == 0x2028 || r == 0x2029:
		return newline
	case unicode.IsSpace(r):
		return space
	case isEmoji(r):
		return emoji
	}
	return punct
}

// isEmoji reports whether r is in a block of emoji and pictographs, or is one of the
// joiners that glue emoji sequences together. o200k spends one to three tokens on each.
func isEmoji(r rune) bool {
	switch {
	case 0x1F000 <= r && r <= 0x1FAFF, // emoticons, pictographs, flags, skin tones
		0x2300 <= r && r <= 0x23FF,   // ⌚ ⏰
		0x2600 <= r && r <= 0x27BF,   // ☔ ✅ ✨ ❤
		0x2B00 <= r && r <= 0x2BFF,   // ⬆ ⭐
		0xE0020 <= r && r <= 0xE007F, // flag tags
		r == 0x200D:                  // zero-width joiner
		return true
	}
	return false
}
