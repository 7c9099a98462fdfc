package tghtml

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

func TestPieces(t *testing.T) {
	if got := Pieces(""); got != nil {
		t.Errorf("Pieces(\"\") = %q, want none", got)
	}
	got := Pieces("**hi** & bye")
	want := []mynah.Piece{{HTML: "<b>hi</b> &amp; bye", Plain: "hi & bye"}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Pieces (-got +want):\n%s", diff)
	}

	long := strings.Repeat("lorem ipsum dolor sit amet\n\n", 400) // ~11,200 characters
	pieces := Pieces(long)
	if len(pieces) < 3 {
		t.Fatalf("a reply of %d characters gave %d pieces, want at least 3", len(long), len(pieces))
	}
	var plain []string
	for i, p := range pieces {
		if n := utf8.RuneCountInString(p.Plain); n > MaxMessageLen {
			t.Errorf("piece %d has %d characters, more than %d", i, n, MaxMessageLen)
		}
		if p.Plain != Plain(p.HTML) {
			t.Errorf("piece %d: Plain %q is not the text of its HTML", i, p.Plain)
		}
		plain = append(plain, p.Plain)
	}
	if got, want := strings.Join(plain, "\n\n"), strings.TrimSpace(long); got != want {
		t.Errorf("the pieces do not add up to the reply:\n%s", cmp.Diff(got, want))
	}
}
