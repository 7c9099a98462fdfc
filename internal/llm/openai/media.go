package openai

import (
	"encoding/base64"

	"github.com/openai/openai-go/v3"

	"github.com/mynah-ai/mynah/internal/llm"
)

// imageTypes are the image types Chat Completions takes (OpenAI's vision guide).
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// audioFormats maps the audio types Chat Completions takes to their input_audio format:
// the API knows only wav and mp3.
var audioFormats = map[string]string{
	"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/vnd.wave": "wav",
	"audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/mpeg3": "mp3", "audio/x-mpeg-3": "mp3",
}

// mediaPart is the content part of p's image (an image_url with a data URL) or audio
// (input_audio); media the API does not take, or without bytes, becomes a text part
// saying so.
func mediaPart(p llm.Part) openai.ChatCompletionContentPartUnionParam {
	if b := p.Image; b != nil {
		if t := b.MediaType(); imageTypes[t] && len(b.Data) > 0 {
			return openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
				URL: "data:" + t + ";base64," + base64.StdEncoding.EncodeToString(b.Data)})
		}
	} else if f := audioFormats[p.Audio.MediaType()]; f != "" && len(p.Audio.Data) > 0 {
		return openai.InputAudioContentPart(openai.ChatCompletionContentPartInputAudioInputAudioParam{
			Data: base64.StdEncoding.EncodeToString(p.Audio.Data), Format: f})
	}
	return openai.TextContentPart(llm.MediaPlaceholder(p))
}
