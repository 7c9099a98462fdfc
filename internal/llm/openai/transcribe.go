package openai

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/mynah-ai/mynah/internal/llm"
)

// Transcriber turns speech into text through an Audio Transcriptions endpoint (POST
// {BaseURL}/audio/transcriptions): OpenAI's own, or any server speaking it, such as a
// local whisper server. It is immutable and safe for concurrent use.
type Transcriber struct {
	m     *Model // its configuration and error translation
	svc   openai.AudioTranscriptionService
	model string
}

var _ llm.Transcriber = (*Transcriber)(nil)

// NewTranscriber returns a Transcriber using model ("whisper-1",
// "gpt-4o-mini-transcribe", or whatever name the server gives its model) at the
// endpoint cfg describes; cfg.MaxTokens is unused. Like New it does no I/O, disables
// the SDK's retries (wrap it with llm.WithTranscribeRetry) and reads no environment.
func NewTranscriber(cfg Config, model string) (*Transcriber, error) {
	if model == "" {
		return nil, errors.New("openai: a transcription model is required")
	}
	m, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &Transcriber{m: m, svc: openai.NewAudioTranscriptionService(m.options()...), model: model}, nil
}

// Transcribe uploads audio as a file named for its type ("voice.ogg" for Telegram's
// audio/ogg voice notes) and returns the transcript, trimmed. Provider failures are
// *llm.Error, an answer without a transcript among them (llm.ErrMalformed); audio
// without bytes is an error before any call.
func (t *Transcriber) Transcribe(ctx context.Context, audio llm.Blob, lang string) (string, error) {
	if len(audio.Data) == 0 {
		return "", errors.New("openai: no audio to transcribe")
	}
	typ := audio.MediaType()
	contentType := typ
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	params := openai.AudioTranscriptionNewParams{
		File:           openai.File(bytes.NewReader(audio.Data), filename(typ), contentType),
		Model:          openai.AudioModel(t.model),
		ResponseFormat: openai.AudioResponseFormatJSON,
	}
	if lang != "" {
		params.Language = openai.String(lang)
	}
	resp, err := t.svc.New(ctx, params)
	if err != nil {
		return "", t.m.translate(ctx, err)
	}
	if !resp.JSON.Text.Valid() {
		return "", llm.Malformed(provider, "the transcription has no text")
	}
	return strings.TrimSpace(resp.Text), nil
}

// extensions maps audio types to the file extensions by which the Transcriptions API
// recognises its formats (flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm).
var extensions = map[string]string{
	"audio/ogg": "ogg", "audio/opus": "ogg", "application/ogg": "ogg", "audio/x-opus+ogg": "ogg",
	"audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/mpeg3": "mp3", "audio/x-mpeg-3": "mp3", "audio/mpga": "mpga",
	"audio/mp4": "m4a", "audio/m4a": "m4a", "audio/x-m4a": "m4a", "audio/aac": "m4a", "video/mp4": "mp4",
	"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/vnd.wave": "wav",
	"audio/webm": "webm", "video/webm": "webm",
	"audio/flac": "flac", "audio/x-flac": "flac",
}

// filename is the name under which Transcribe uploads audio of type typ: "voice." and
// the extension of its format ("voice.ogg" for audio/ogg). No type is taken for Ogg,
// the format of Telegram's voice notes; a type the table lacks lends its subtype
// ("voice.amr" for audio/amr), which the API rejects clearly if it does not know it.
func filename(typ string) string {
	ext, ok := extensions[typ]
	switch {
	case ok:
	case typ == "":
		ext = "ogg"
	default:
		_, sub, _ := strings.Cut(typ, "/")
		ext = strings.TrimPrefix(sub, "x-")
	}
	return "voice." + ext
}
