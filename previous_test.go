package mynah_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

func TestPreviousContext(t *testing.T) {
	at := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("w ", n)) }
	for _, c := range []struct {
		name  string
		body  string
		reply string
		prev  []mynah.PreviousMessage
		want  string
	}{
		{"short after short", "yes", "", []mynah.PreviousMessage{{at.Add(-time.Minute), "is it raining?"}, {at.Add(-2 * time.Minute), "look outside"}}, "look outside is it raining?"},
		{"the end of a long one", words(95), "", []mynah.PreviousMessage{{at, "one two three four five six seven"}}, "three four five six seven"},
		{"long", words(100), "", []mynah.PreviousMessage{{at, "is it raining?"}}, ""},
		{"an hour apart", "yes", "", []mynah.PreviousMessage{{at.Add(-61 * time.Minute), "is it raining?"}}, ""},
		{"stored first, said a month later", "yes", "", []mynah.PreviousMessage{{at.Add(30 * 24 * time.Hour), "is it raining?"}}, ""},
		{"stored first, said a second later", "yes", "", []mynah.PreviousMessage{{at.Add(time.Second), "is it raining?"}}, "is it raining?"},
		{"a reply, whenever", "yes", "is it raining?", []mynah.PreviousMessage{{at.Add(-48 * time.Hour), "is it raining?"}}, "is it raining?"},
		{"a reply, then the message before", "yes", "the cake?", []mynah.PreviousMessage{{at, "and the venue?"}}, "and the venue? the cake?"},
		{"after a long answer", "thanks!", "", []mynah.PreviousMessage{{at, words(149) + " more?"}, {at, "is it raining?"}}, ""},
		{"after a shorter answer", "thanks!", "", []mynah.PreviousMessage{{at, words(147) + " more?"}, {at, "is it raining?"}}, words(98) + " more?"},
		{"a reply to a long answer", "thanks!", words(149) + " more?", []mynah.PreviousMessage{{at, words(149) + " more?"}}, words(98) + " more?"},
	} {
		if got := mynah.PreviousContext(c.body, at, c.reply, c.prev); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
