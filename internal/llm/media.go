package llm

import (
	"mime"
	"strings"
)

// MediaType returns b's media type in lower case without parameters ("audio/ogg" for
// "audio/OGG; codecs=opus"), as providers want it; "" when MIME is empty or unparseable.
func (b Blob) MediaType() string {
	t, _, err := mime.ParseMediaType(b.MIME)
	if err != nil {
		return ""
	}
	return t
}

// MediaPlaceholder is the text an adapter sends instead of p's image or audio when the
// provider cannot take it: "[audio (audio/ogg) not supported by this model]". It is ""
// for a part without media.
func MediaPlaceholder(p Part) string {
	kind, b := "image", p.Image
	if b == nil {
		kind, b = "audio", p.Audio
	}
	if b == nil {
		return ""
	}
	t := b.MediaType()
	if t == "" {
		t = "unknown type"
	}
	return "[" + kind + " (" + t + ") not supported by this model]"
}

// ImageTokens is the estimated input cost of one image in tokens. Providers count an
// image by its size (OpenAI in 512-pixel tiles, Anthropic by area, Gemini in 768-pixel
// tiles); Telegram sends photos at most 1280 pixels on the long side, which OpenAI's
// high-detail rule scales to 1024×768, four tiles: 85 + 4×170 = 765. Anthropic counts
// such a photo higher (about 1,600) and Gemini lower (about 1,000 or 258 for a small
// one); 765 is the middle of the range, for budgets, not billing.
const ImageTokens = 765

// audioTokensPerSecond is Gemini's published rate for audio input (OpenAI's audio
// models count fewer), so estimates err on the high side.
const audioTokensPerSecond = 32

// MediaTokens estimates the input tokens p's image or audio costs; 0 for other parts.
// An image costs ImageTokens. Audio costs by its estimated length: uncompressed WAV at
// 16 kHz mono (32 KB a second), anything else at 32 kbit/s (4 KB a second, the upper
// end of Telegram's Opus voice notes), at audioTokensPerSecond, and at least one
// second's worth.
func MediaTokens(p Part) int {
	switch {
	case p.Image != nil:
		return ImageTokens
	case p.Audio != nil:
		perSecond := 4000
		if t := p.Audio.MediaType(); strings.Contains(t, "wav") || strings.Contains(t, "wave") {
			perSecond = 32000
		}
		seconds := (len(p.Audio.Data) + perSecond - 1) / perSecond
		return max(1, seconds) * audioTokensPerSecond
	}
	return 0
}
