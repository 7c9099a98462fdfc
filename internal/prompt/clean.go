package prompt

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Clean prepares text a user wrote for a prompt, so that what the model reads as the
// start of a line is what mynah's own rendering sees as one: the text is NFKC-normalised
// (full-width "［meta］" reads "[meta]", ideographic and en spaces are spaces), every
// Unicode line break (\r, \v, \f, U+0085, U+2028, U+2029) becomes "\n", and invisible
// format characters (zero-width joiners and spaces, word joiner, soft hyphen, bidi
// controls) and other control characters are removed — except a zero-width joiner inside
// an emoji sequence, which is kept. The stored text is never changed; only what the
// model reads.
func Clean(s string) string {
	if isPlain(s) {
		return s
	}
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	prev := rune(0)
	for i, r := range s {
		switch {
		case r == '\r':
			if strings.HasPrefix(s[i+1:], "\n") {
				continue // the "\n" of "\r\n" follows
			}
			r = '\n'
		case r == '\n', r == '\t':
		case r == '\v', r == '\f', r == 0x85, r == 0x2028, r == 0x2029:
			r = '\n'
		case r == 0x200d:
			next, _ := utf8.DecodeRuneInString(s[i+len("\u200d"):])
			if !isEmoji(prev) || !isEmoji(next) {
				continue
			}
		case unicode.Is(unicode.Cf, r), unicode.IsControl(r), r == utf8.RuneError:
			continue
		case unicode.IsSpace(r):
			r = ' '
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII, newlines and tabs only: text Clean
// leaves as it is (most messages).
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// isEmoji reports whether r can be part of an emoji ZWJ sequence (👨‍👩‍👧, 🏳️‍🌈).
func isEmoji(r rune) bool {
	return unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r == 0xfe0f ||
		(r >= 0x1f3fb && r <= 0x1f3ff) || (r >= 0x1f000 && r <= 0x1faff) || (r >= 0x2600 && r <= 0x27bf)
}

// quoteUser renders a value a user controls (a name, a chat title) for the system text:
// cleaned, on one line, headers neutralised, at most maxValueRunes, in double quotes with
// inner quotes escaped — so it reads as data, never as instructions.
func quoteUser(s string) string {
	s = strings.Join(strings.Fields(Clean(s)), " ")
	s = strings.NewReplacer("[", "(", "]", ")").Replace(s)
	if utf8.RuneCountInString(s) > maxValueRunes {
		s = string([]rune(s)[:maxValueRunes]) + "…"
	}
	return strconv.Quote(s)
}

// maxValueRunes bounds a user-controlled value in the system text: Telegram allows 128
// characters for a chat title, 64 + 64 for a name.
const maxValueRunes = 128
