package stem

import (
	"slices"
	"testing"
)

// Edits gives each word one edit away once, in the word's script, and nothing for words
// too short, too long, with digits or of mixed scripts.
func TestEdits(t *testing.T) {
	e := Edits("dnetist")
	for _, want := range []string{"dentist", "netist", "dnetis", "dnetists", "dnetust"} {
		if !slices.Contains(e, want) {
			t.Errorf("Edits(dnetist) lacks %q", want)
		}
	}
	if slices.Contains(e, "dnetist") {
		t.Error("Edits(dnetist) holds the word itself")
	}
	seen := map[string]bool{}
	for _, v := range e {
		if seen[v] {
			t.Errorf("Edits(dnetist) holds %q twice", v)
		}
		seen[v] = true
	}
	// At most 7 left out, 6 swaps, 7×26 changes and 8×26 additions, less repeats.
	if n := len(e); n < 300 || n > 7+6+7*26+8*26 {
		t.Errorf("Edits(dnetist) = %d words, want 300 to 403", n)
	}
	if c := Edits("дмван"); !slices.Contains(c, "диван") || slices.ContainsFunc(c, func(s string) bool { return s != "" && s[0] < 0x80 }) {
		t.Errorf("Edits(дмван) lacks диван or holds Latin letters")
	}
	for _, w := range []string{"cat", "abcdefghijklm", "route66", "hotelь", ""} {
		if e := Edits(w); e != nil {
			t.Errorf("Edits(%q) = %d words, want none", w, len(e))
		}
	}
}
