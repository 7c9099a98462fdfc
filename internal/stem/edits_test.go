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
	// Four letters: swaps and additions, not a letter left out or changed.
	if e := Edits("yoag"); !slices.Contains(e, "yoga") || !slices.Contains(Edits("kayk"), "kayak") ||
		slices.Contains(e, "yog") || slices.Contains(e, "yoat") || len(e) != 3+5*26-4 { // a letter added beside itself repeats: 4
		t.Errorf("Edits(yoag) = %d words, want yoga among its 3 swaps and 5×26 additions, without yog or yoat", len(e))
	}
	for _, w := range []string{"cat", "abcdefghijklm", "route66", "hotelь", ""} {
		if e := Edits(w); e != nil {
			t.Errorf("Edits(%q) = %d words, want none", w, len(e))
		}
	}
}

// Swaps gives each neighbours swapped once, without the word itself, and nothing where
// Edits gives nothing.
func TestSwaps(t *testing.T) {
	if got := Swaps("yoag"); !slices.Equal(got, []string{"oyag", "yaog", "yoga"}) {
		t.Errorf("Swaps(yoag) = %q", got)
	}
	if got := Swaps("bookk"); !slices.Equal(got, []string{"obokk", "bokok"}) {
		t.Errorf("Swaps(bookk) = %q, want obokk and bokok (the others repeat or are the word)", got)
	}
	for _, w := range []string{"cat", "abcdefghijklm", "route66", "hotelь", ""} {
		if s := Swaps(w); s != nil {
			t.Errorf("Swaps(%q) = %q, want none", w, s)
		}
	}
}

// Typos picks the longest two words that matched nothing, and reads them by all their
// Edits when no word matched, by their Swaps alone when one did.
func TestTypos(t *testing.T) {
	words := []string{"photos", "passprot", "cst", "sunrissee", "hotl"}
	got := Typos(words, []bool{false, false, false, false, false})
	if len(got) != 2 || got[0].At != 3 || got[1].At != 1 || !slices.Equal(got[1].Edits, Edits("passprot")) {
		t.Errorf("nothing matched: Typos picked %v, want sunrissee then passprot, by their Edits", typoAt(got))
	}
	got = Typos(words, []bool{true, false, false, true, false})
	if len(got) != 2 || got[0].At != 1 || got[1].At != 4 || !slices.Equal(got[0].Edits, Swaps("passprot")) {
		t.Errorf("photos and sunrissee matched: Typos picked %v, want passprot then hotl, by their Swaps", typoAt(got))
	}
	// A compound added for two words of the search is not a typo, though the longest.
	got = Typos([]string{"dnetist", "bill", "dnetistbill"}, []bool{false, false, false})
	if !slices.Equal(typoAt(got), []int{0, 1}) {
		t.Errorf("Typos picked %v of dnetist, bill and their compound, want dnetist then bill", typoAt(got))
	}
}

func typoAt(typos []Typo) []int {
	var at []int
	for _, t := range typos {
		at = append(at, t.At)
	}
	return at
}
