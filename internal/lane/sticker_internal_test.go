package lane

import "testing"

// TestStickerNames: a sticker is named as the prompt lists it (Set::emoji) or by set and
// emoji; an explicit entry allows only its own sticker of a set.
func TestStickerNames(t *testing.T) {
	p := &planner{stickerSets: []string{"MrRibbit", "Cats::😺"}}
	for _, tt := range []struct{ name, set, emoji, want string }{
		{name: "MrRibbit::💻", want: "MrRibbit/💻"},
		{name: "cats::😺", want: "Cats/😺"},
		{emoji: "💻", want: "MrRibbit/💻"},
		{name: "👍", want: "MrRibbit/👍"},
		{set: "Cats", emoji: "😺\ufe0f", want: "Cats/😺\ufe0f"},
		{name: "Cats::🐶", want: "error"},
		{set: "Dogs", emoji: "🐶", want: "error"},
		{name: "MrRibbit::", want: "error"},
	} {
		set, emoji, err := p.sticker(tt.name, tt.set, tt.emoji)
		got := set + "/" + emoji
		if err != nil {
			got = "error"
		}
		if got != tt.want {
			t.Errorf("sticker(%q, %q, %q) = %s (%v), want %s", tt.name, tt.set, tt.emoji, got, err, tt.want)
		}
	}
}
