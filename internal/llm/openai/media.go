package openai

import (
	"encoding/base64"

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

// appendMedia appends the content part of p's image (an image_url with a data URL) or
// audio (input_audio); media the API does not take, or without bytes, becomes a text part
// saying so.
func appendMedia(b []byte, p llm.Part) []byte {
	if img := p.Image; img != nil {
		if t := img.MediaType(); imageTypes[t] && len(img.Data) > 0 {
			// t is one of imageTypes and base64 one of JSON's plain characters: nothing
			// to escape.
			b = append(b, `{"image_url":{"url":"data:`...)
			b = append(b, t...)
			b = append(b, ";base64,"...)
			b = base64.StdEncoding.AppendEncode(b, img.Data)
			return append(b, `"},"type":"image_url"}`...)
		}
	} else if f := audioFormats[p.Audio.MediaType()]; f != "" && len(p.Audio.Data) > 0 {
		b = append(b, `{"input_audio":{"data":"`...)
		b = base64.StdEncoding.AppendEncode(b, p.Audio.Data)
		b = append(b, `","format":"`...)
		b = append(b, f...)
		return append(b, `"},"type":"input_audio"}`...)
	}
	return appendTextPart(b, llm.MediaPlaceholder(p))
}
