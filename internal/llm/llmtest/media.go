package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mynah-ai/mynah/internal/llm"
)

// Images returns the images of r's user turns, in order.
func (r Recorded) Images() []llm.Blob { return r.media(func(p llm.Part) *llm.Blob { return p.Image }) }

// Audio returns the audio of r's user turns, in order.
func (r Recorded) Audio() []llm.Blob { return r.media(func(p llm.Part) *llm.Blob { return p.Audio }) }

func (r Recorded) media(of func(llm.Part) *llm.Blob) []llm.Blob {
	var out []llm.Blob
	for _, t := range r.Turns {
		for _, p := range t.Parts {
			if b := of(p); b != nil && t.Role == llm.User {
				out = append(out, *b)
			}
		}
	}
	return out
}

// openaiImageTypes are the image types OpenAI takes; the API rejects others ("You
// uploaded an unsupported image").
var openaiImageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// openaiAudioFormats maps input_audio's format enum to the media type recorded.
var openaiAudioFormats = map[string]string{"wav": "audio/wav", "mp3": "audio/mpeg"}

// openaiUserParts decodes a user message's content, a string or an array of text,
// image_url and input_audio parts, into parts in their order. A problem starts with
// the place in the content it concerns.
func openaiUserParts(raw json.RawMessage) ([]llm.Part, string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []llm.Part{{Text: s}}, ""
	}
	var parts []struct {
		Type     string  `json:"type"`
		Text     *string `json:"text"`
		ImageURL *struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		} `json:"image_url"`
		InputAudio *struct {
			Data   string `json:"data"`
			Format string `json:"format"`
		} `json:"input_audio"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) == 0 {
		return nil, ": want a string or a non-empty array of content parts"
	}
	var out []llm.Part
	for j, p := range parts {
		switch {
		case p.Type == "text" && p.Text != nil:
			out = append(out, llm.Part{Text: *p.Text})
		case p.Type == "image_url" && p.ImageURL != nil:
			if d := p.ImageURL.Detail; d != "" && d != "auto" && d != "low" && d != "high" {
				return nil, fmt.Sprintf("[%d].image_url.detail: invalid value %q", j, d)
			}
			b, problem := dataURL(p.ImageURL.URL)
			if problem != "" {
				return nil, fmt.Sprintf("[%d].image_url.url: %s", j, problem)
			}
			if !openaiImageTypes[b.MIME] {
				return nil, fmt.Sprintf("[%d]: You uploaded an unsupported image (%s). Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].", j, b.MIME)
			}
			out = append(out, llm.Part{Image: b})
		case p.Type == "input_audio" && p.InputAudio != nil:
			mime := openaiAudioFormats[p.InputAudio.Format]
			if mime == "" {
				return nil, fmt.Sprintf("[%d].input_audio.format: invalid value %q (want wav or mp3)", j, p.InputAudio.Format)
			}
			data, err := base64.StdEncoding.DecodeString(p.InputAudio.Data)
			if err != nil || len(data) == 0 {
				return nil, fmt.Sprintf("[%d].input_audio.data: want non-empty base64", j)
			}
			out = append(out, llm.Part{Audio: &llm.Blob{MIME: mime, Data: data}})
		default:
			return nil, fmt.Sprintf("[%d]: want a text, image_url or input_audio part with its object (the fake has no file parts)", j)
		}
	}
	return out, ""
}

// dataURL decodes "data:<type>;base64,<data>", the only image URL the fake takes.
func dataURL(url string) (*llm.Blob, string) {
	rest, ok := strings.CutPrefix(url, "data:")
	meta, data, ok2 := strings.Cut(rest, ",")
	typ, ok3 := strings.CutSuffix(meta, ";base64")
	if !ok || !ok2 || !ok3 || typ == "" {
		return nil, "want a data:<type>;base64,<data> URL (the fake fetches no images)"
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(b) == 0 {
		return nil, "the data URL's data is not non-empty base64"
	}
	return &llm.Blob{MIME: typ, Data: b}, ""
}

// anthropicImageTypes is the media_type enum of the Messages API's base64 image source.
var anthropicImageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// anthropicImage decodes an image block's source.
func anthropicImage(src *anthropicSource) (*llm.Blob, string) {
	if src == nil || src.Type != "base64" {
		return nil, "image source: want type base64 with media_type and data (the fake fetches no URLs)"
	}
	if !anthropicImageTypes[src.MediaType] {
		return nil, fmt.Sprintf("source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp', got %q", src.MediaType)
	}
	b, err := base64.StdEncoding.DecodeString(src.Data)
	if err != nil || len(b) == 0 {
		return nil, "source.data: want non-empty base64"
	}
	return &llm.Blob{MIME: src.MediaType, Data: b}, ""
}

// geminiImageTypes are the image types Gemini documents; it rejects others
// ("Unsupported MIME type").
var geminiImageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/webp": true, "image/heic": true, "image/heif": true}

// geminiInline decodes an inlineData blob as an image or audio part.
func geminiInline(b *geminiBlob) (llm.Part, string) {
	typ := b.MimeType
	if typ == "" {
		typ = b.MimeTypeS
	}
	if len(b.Data) == 0 {
		return llm.Part{}, "inlineData.data is required"
	}
	blob := &llm.Blob{MIME: typ, Data: b.Data}
	switch {
	case geminiImageTypes[typ]:
		return llm.Part{Image: blob}, ""
	case strings.HasPrefix(typ, "audio/"):
		return llm.Part{Audio: blob}, ""
	}
	return llm.Part{}, fmt.Sprintf("Unsupported MIME type: %s (the fake takes the documented image types and audio)", typ)
}
