package gcstart

import (
	"strings"
	"testing"
)

func TestIsOneShot(t *testing.T) {
	for line, want := range map[string]bool{
		"version":                             true,
		"memory search --chat 42 -q dentist":  true,
		"memory search -q serve":              true,
		"check --config mybot":                true,
		"pair list --config mybot":            true,
		"serve --config mybot":                false,
		"play --config mybot":                 false,
		"import chat.jsonl --chat 1":          false,
		"bench load --chats 300":              false,
		"memory facts list":                   false,
		"store copy --to postgres://x":        false,
		"":                                    false,
		"-test.run=TestX -test.timeout=10m0s": false,
	} {
		if got := isOneShot(strings.Fields(line)); got != want {
			t.Errorf("isOneShot(%q) = %v, want %v", line, got, want)
		}
	}
}
