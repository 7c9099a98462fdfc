package prompt

import (
	"strings"
)

// Neutralize defuses lines of user text that imitate the headers mynah puts into prompts
// ("[meta] …", "[system] …"), so nobody can pose as another speaker or as mynah itself:
// the bracket is replaced by a parenthesis. Everything else is kept byte for byte.
func Neutralize(text string) string {
	if !strings.Contains(text, "[") {
		return text
	}
	lines := strings.Split(text, "\n")
	changed := false
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " \t\u00a0\u200b\ufeff>")
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
	switch strings.ToLower(strings.TrimSpace(line[1:end])) {
	case "meta", "system", "respond", "quoted":
		return true
	}
	return false
}
