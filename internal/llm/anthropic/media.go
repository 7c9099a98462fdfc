package anthropic

import (
	"encoding/base64"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/mynah-ai/mynah/internal/llm"
)

// imageTypes are the media types of the API's base64 image source.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// mediaBlock is the block of p's image: a base64 image block. The Messages API takes no
// audio, so audio, an image of another type and one without bytes become a text block
// saying so.
func mediaBlock(p llm.Part) anthropic.ContentBlockParamUnion {
	if b := p.Image; b != nil && len(b.Data) > 0 {
		if t := b.MediaType(); imageTypes[t] {
			return anthropic.NewImageBlockBase64(t, base64.StdEncoding.EncodeToString(b.Data))
		}
	}
	return anthropic.NewTextBlock(llm.MediaPlaceholder(p))
}
