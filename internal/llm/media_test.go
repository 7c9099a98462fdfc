package llm_test

import (
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
)

func TestMediaType(t *testing.T) {
	for mime, want := range map[string]string{
		"audio/ogg": "audio/ogg", "audio/OGG; codecs=opus": "audio/ogg", "image/jpeg": "image/jpeg",
		"": "", "not a type;;": "",
	} {
		if got := (llm.Blob{MIME: mime}).MediaType(); got != want {
			t.Errorf("MediaType(%q) = %q, want %q", mime, got, want)
		}
	}
}

func TestMediaPlaceholder(t *testing.T) {
	for _, tt := range []struct {
		part llm.Part
		want string
	}{
		{llm.Part{Audio: &llm.Blob{MIME: "audio/ogg; codecs=opus"}}, "[audio (audio/ogg) not supported by this model]"},
		{llm.Part{Image: &llm.Blob{MIME: "image/bmp"}}, "[image (image/bmp) not supported by this model]"},
		{llm.Part{Image: &llm.Blob{}}, "[image (unknown type) not supported by this model]"},
		{llm.Part{Text: "hi"}, ""},
	} {
		if got := llm.MediaPlaceholder(tt.part); got != tt.want {
			t.Errorf("MediaPlaceholder(%+v) = %q, want %q", tt.part, got, tt.want)
		}
	}
}

// TestMediaTokens: an image costs the same whatever its bytes; audio grows with its
// length, WAV (uncompressed) by eight times fewer tokens a byte than compressed audio.
func TestMediaTokens(t *testing.T) {
	audio := func(mime string, n int) llm.Part {
		return llm.Part{Audio: &llm.Blob{MIME: mime, Data: make([]byte, n)}}
	}
	for _, tt := range []struct {
		name string
		part llm.Part
		want int
	}{
		{"text", llm.Part{Text: "a long text that counts elsewhere"}, 0},
		{"tool call", llm.Part{ToolCall: &llm.ToolCall{Name: "x"}}, 0},
		{"small image", llm.Part{Image: &llm.Blob{MIME: "image/png", Data: make([]byte, 10)}}, llm.ImageTokens},
		{"large image", llm.Part{Image: &llm.Blob{MIME: "image/jpeg", Data: make([]byte, 1<<20)}}, llm.ImageTokens},
		{"empty audio", audio("audio/ogg", 0), 32},
		{"10 s voice note", audio("audio/ogg", 40000), 320},
		{"10 s wav", audio("audio/wav", 320000), 320},
		{"a byte over 1 s", audio("audio/mpeg", 4001), 64},
	} {
		if got := llm.MediaTokens(tt.part); got != tt.want {
			t.Errorf("%s: MediaTokens = %d, want %d", tt.name, got, tt.want)
		}
	}
}
