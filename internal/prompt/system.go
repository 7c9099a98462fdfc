// Package prompt assembles what a model sees on a turn: the system instruction and the
// conversation history inside a token budget, rendered as provider-neutral llm turns.
// It is pure: callers load the data, prompt decides what goes in and how it reads.
package prompt

import (
	"strings"
)

// SystemParts are the stable pieces of the system instruction, in order.
type SystemParts struct {
	ProviderNotes string   // notes for the model family (prompts/providers/<kind>.md)
	Roles         []string // role prompts in configured order
	Instructions  string   // the agent's own instructions
}

// System joins the non-empty parts with blank lines and substitutes {variables}.
func System(p SystemParts, vars map[string]string) string {
	pieces := make([]string, 0, 2+len(p.Roles))
	for _, s := range append(append([]string{p.ProviderNotes}, p.Roles...), p.Instructions) {
		if s = strings.TrimSpace(s); s != "" {
			pieces = append(pieces, s)
		}
	}
	return Substitute(strings.Join(pieces, "\n\n"), vars)
}

// Substitute replaces {name} with vars[name] for every known name; unknown names and
// lone braces are left as written, so instructions may contain JSON or code. A quoted
// value ("…") written inside quotes ("{chatname}") is not quoted twice.
func Substitute(s string, vars map[string]string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			b.WriteString(s)
			return b.String()
		}
		closing := strings.IndexByte(s[open:], '}')
		if closing < 0 {
			b.WriteString(s)
			return b.String()
		}
		name := s[open+1 : open+closing]
		if v, ok := vars[name]; ok {
			b.WriteString(s[:open])
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && strings.HasSuffix(s[:open], "\"") &&
				strings.HasPrefix(s[open+closing+1:], "\"") {
				v = v[1 : len(v)-1]
			}
			b.WriteString(v)
		} else {
			b.WriteString(s[:open+closing+1])
		}
		s = s[open+closing+1:]
	}
}
