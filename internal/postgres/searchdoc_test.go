package postgres

import (
	"slices"
	"testing"
)

// TestPositionsOf: a lexeme's positions are read from an entry's text as PostgreSQL
// prints it, and a lexeme that only ends another one is not found.
func TestPositionsOf(t *testing.T) {
	doc := `'bird':3 'owl':1,7A,12 '~cowl':20 'x''y':4`
	for _, c := range []struct {
		lexeme string
		want   occurrence
	}{
		{"owl", occurrence{1, 7, 12}},
		{"bird", occurrence{3}},
		{"~cowl", occurrence{20}},
		{"x'y", occurrence{4}},
		{"wl", nil},
		{"cowl", nil},
	} {
		if got := positionsOf(doc, c.lexeme); !slices.Equal(got, c.want) {
			t.Errorf("positionsOf(%q) = %v, want %v", c.lexeme, got, c.want)
		}
	}
}

// TestTokens: the index's words as the SQLite store's tokenizer makes them: split at
// what is not a letter or digit, lower-cased, Latin accents dropped, English stemmed,
// Russian and Ukrainian stemmed by internal/stem.
func TestTokens(t *testing.T) {
	got := tokens(nil, "She was running to the Café, col:umn 2025 — машину", true)
	want := []string{"she", "was", "run", "to", "the", "cafe", "col", "umn", "2025", tokens(nil, "машина", true)[0]}
	if !slices.Equal(got, want) {
		t.Errorf("tokens = %q, want %q", got, want)
	}
}
