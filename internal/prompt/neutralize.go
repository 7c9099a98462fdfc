package prompt

import (
	"strings"
	"unicode"
)

// Neutralize defuses lines of user text that imitate the headers mynah puts into prompts
// ("[meta] …", "[system] …", also spelled with look-alike letters such as Cyrillic "е"),
// so nobody can pose as another speaker or as mynah itself: the bracket is replaced by a
// parenthesis. Everything else is kept byte for byte. Text should be Clean first, so that
// every line break is a "\n" and invisible characters cannot hide a header.
func Neutralize(text string) string {
	if !strings.Contains(text, "[") {
		return text
	}
	lines := strings.Split(text, "\n")
	changed := false
	for i, line := range lines {
		trimmed := strings.TrimLeftFunc(line, func(r rune) bool {
			return unicode.IsSpace(r) || r == '>' || unicode.Is(unicode.Cf, r)
		})
		if !IsHeader(trimmed) {
			continue
		}
		lead := len(line) - len(trimmed)
		end := strings.IndexByte(trimmed, ']')
		lines[i] = line[:lead] + "(" + trimmed[1:end] + ")" + trimmed[end+1:]
		changed = true
	}
	if !changed {
		return text
	}
	return strings.Join(lines, "\n")
}

// IsHeader reports whether line starts with a prompt header tag such as "[meta]".
func IsHeader(line string) bool {
	if !strings.HasPrefix(line, "[") {
		return false
	}
	end := strings.IndexByte(line, ']')
	if end < 0 {
		return false
	}
	switch skeleton(line[1:end]) {
	case "meta", "system", "respond", "quoted":
		return true
	}
	return false
}

// skeleton reduces a header tag to lowercase Latin letters: look-alike Cyrillic and Greek
// letters become the Latin ones they imitate, and everything that is not a letter
// (spaces, dots, invisible characters) is dropped, so "[ M.е t a ]" reads "meta".
func skeleton(tag string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(tag) {
		if l, ok := lookalike(r); ok {
			r = l
		}
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		} else if unicode.IsLetter(r) {
			b.WriteRune(r) // a letter of another script: the tag is no header
		}
	}
	return b.String()
}

// lookalike maps a Cyrillic or Greek lowercase letter to the Latin letter it looks like.
func lookalike(r rune) (rune, bool) {
	const from, to = "авеёкмнорстухіїјѕԁһӏԛԝɑοαεικνρτυχγμη", "abeekmhopctyxiijsdhlqwaoaeikvptuxymn"
	for i, f := range []rune(from) {
		if f == r {
			return []rune(to)[i], true
		}
	}
	return r, false
}
