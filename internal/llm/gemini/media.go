package gemini

import (
	"strings"

	"google.golang.org/genai"

	"github.com/mynah-ai/mynah/internal/llm"
)

// imageTypes are the image types Gemini documents (no GIF).
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/webp": true, "image/heic": true, "image/heif": true}

// mediaPart is p's image or audio as inline data. Audio of any type is sent, Gemini
// taking most formats (WAV, MP3, AIFF, AAC, Ogg, FLAC); an image of a type it does not
// document, or media without bytes, becomes a text part saying so.
func mediaPart(p llm.Part) *genai.Part {
	b, ok := p.Image, false
	if b != nil {
		ok = imageTypes[b.MediaType()]
	} else {
		b = p.Audio
		ok = strings.HasPrefix(b.MediaType(), "audio/")
	}
	if !ok || len(b.Data) == 0 {
		return &genai.Part{Text: llm.MediaPlaceholder(p)}
	}
	return &genai.Part{InlineData: &genai.Blob{MIMEType: b.MediaType(), Data: b.Data}}
}
