package gemini

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/genai"

	"github.com/mynah-ai/mynah/internal/llm"
)

// Transcriber turns speech into text with a Gemini model: one generateContent call
// holding the audio inline and an instruction to transcribe it verbatim. It is
// immutable and safe for concurrent use.
type Transcriber struct {
	m     *Model
	model string
}

var _ llm.Transcriber = (*Transcriber)(nil)

// NewTranscriber returns a Transcriber using model (such as "gemini-2.5-flash") at the
// endpoint cfg describes. cfg.MaxTokens is unused: a transcript is as long as the
// speech, and a thinking model's thoughts would count against the limit. Like New it
// does no I/O and reads no environment; wrap it with llm.WithTranscribeRetry to retry.
func NewTranscriber(cfg Config, model string) (*Transcriber, error) {
	if model == "" {
		return nil, errors.New("gemini: a transcription model is required")
	}
	m, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &Transcriber{m: m, model: model}, nil
}

// Transcribe returns the words spoken in audio, trimmed; "" when nobody speaks. Audio
// without a type is sent as audio/ogg, the format of Telegram's voice notes. Provider
// failures are *llm.Error: an answer without a finish reason is llm.ErrMalformed, and
// one Gemini blocked (its finish reason not STOP or MAX_TOKENS) has Status 422, not
// retryable. Audio without bytes is an error before any call.
func (t *Transcriber) Transcribe(ctx context.Context, audio llm.Blob, lang string) (string, error) {
	if len(audio.Data) == 0 {
		return "", errors.New("gemini: no audio to transcribe")
	}
	typ := audio.MediaType()
	if typ == "" {
		typ = "audio/ogg"
	}
	contents := []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{
		{Text: instruction(lang)},
		{InlineData: &genai.Blob{MIMEType: typ, Data: audio.Data}},
	}}}
	var zero float32
	config := &genai.GenerateContentConfig{Temperature: &zero}
	ctx, hdr := withCapture(ctx)
	resp, err := t.m.client.Models.GenerateContent(ctx, t.model, contents, config)
	if err != nil {
		return "", t.m.translate(ctx, err, hdr)
	}
	var acc accumulator
	acc.add(resp)
	switch acc.finish {
	case "":
		return "", llm.Malformed(provider, "the response has no finish reason")
	case string(genai.FinishReasonStop), string(genai.FinishReasonMaxTokens):
		return strings.TrimSpace(acc.text.String()), nil
	}
	return "", &llm.Error{Provider: provider, Status: http.StatusUnprocessableEntity,
		Message: fmt.Sprintf("no transcript: the answer ended with %s", acc.finish)}
}

// instruction is the text Transcribe sends before the audio, naming the
// language when lang (an ISO-639-1 code) is given.
func instruction(lang string) string {
	s := "Transcribe the speech in this audio verbatim, in the language spoken. Reply with only the words spoken: " +
		"no translation, comments, labels or timestamps. If nobody speaks, reply with nothing."
	if lang != "" {
		s += fmt.Sprintf(" The speaker probably speaks the language with ISO-639-1 code %q.", lang)
	}
	return s
}
