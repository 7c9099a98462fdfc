package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// message returns about 2 KB of a fixture, cut at a character boundary.
func message(tb testing.TB, name string) string {
	text := fixtures(tb)[name]
	n := 2048
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n]
}

// BenchmarkCount counts a 2 KB chat message with each counter, after the tables are loaded.
// The first count, which builds a table, happens once per process, so it is measured by
// starting processes rather than here.
func BenchmarkCount(b *testing.B) {
	counters := []struct {
		name string
		c    Counter
	}{
		{"o200k", For("openai", "gpt-4o")},
		{"cl100k", For("openai", "gpt-4")},
		{"estimate", For("anthropic", "claude-sonnet-4-5")},
	}
	for _, lang := range []string{"en_chat", "uk_chat", "zh_chat", "code_chat"} {
		msg := message(b, lang)
		for _, c := range counters {
			b.Run(strings.TrimSuffix(lang, "_chat")+"/"+c.name, func(b *testing.B) {
				c.c.Count(msg) // load the table outside the timed loop
				b.SetBytes(int64(len(msg)))
				b.ReportAllocs()
				for b.Loop() {
					c.c.Count(msg)
				}
			})
		}
	}
}
