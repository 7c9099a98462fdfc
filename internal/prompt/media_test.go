package prompt

import (
	"testing"

	"github.com/mynah-ai/mynah"
)

func TestMedia(t *testing.T) {
	tests := []struct {
		md   mynah.Media
		want string
	}{
		{mynah.Media{Kind: mynah.MediaSticker, SetName: "MrRibbit", Emoji: "💻", Description: "a grumpy cartoon frog at a laptop"}, "[sticker MrRibbit 💻: a grumpy cartoon frog at a laptop]"},
		{mynah.Media{Kind: mynah.MediaSticker, Emoji: "🦜"}, "[sticker 🦜]"},
		{mynah.Media{Kind: mynah.MediaPhoto, Description: "a sunset over the lake"}, "[photo: a sunset over the lake]"},
		{mynah.Media{Kind: mynah.MediaPhoto}, "[photo]"},
		{mynah.Media{Kind: mynah.MediaVoice, Duration: 12}, "[voice 12s]"},
		{mynah.Media{Kind: mynah.MediaDocument, FileName: "plan.pdf"}, `[document "plan.pdf"]`},
		{mynah.Media{Kind: "dice"}, "[dice]"}, // unknown kinds stay as placeholders
	}
	for _, tt := range tests {
		if got := Media(tt.md); got != tt.want {
			t.Errorf("Media(%+v) = %q, want %q", tt.md, got, tt.want)
		}
	}
}
