package gemini_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/gemini"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

func newTranscriber(t *testing.T, srv *llmtest.Server) *gemini.Transcriber {
	t.Helper()
	tr, err := gemini.NewTranscriber(gemini.Config{APIKey: testKey, BaseURL: srv.URL()}, "gemini-2.5-flash")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestTranscribeRequest: one user turn asks for a verbatim transcript, naming the
// language hint, before the audio inline; sampling is greedy.
func TestTranscribeRequest(t *testing.T) {
	srv := llmtest.NewGemini(t)
	srv.Push(llmtest.Reply{Text: "Guten Morgen"}, llmtest.Reply{Text: "hi"})
	tr := newTranscriber(t, srv)
	audio := llmtest.Media("audio/ogg", 1000)
	if got, err := tr.Transcribe(t.Context(), llm.Blob{MIME: "audio/ogg", Data: audio}, "de"); err != nil || got != "Guten Morgen" {
		t.Fatalf("Transcribe = %q, %v", got, err)
	}
	// Telegram may omit a voice note's type: it is Ogg.
	if _, err := tr.Transcribe(t.Context(), llm.Blob{Data: audio}, ""); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, lang := range []string{"de", ""} {
		r := reqs[i]
		if len(r.Turns) != 1 || len(r.Turns[0].Parts) != 2 {
			t.Fatalf("request %d turns = %+v, want one of two parts", i, r.Turns)
		}
		ask := r.Turns[0].Parts[0].Text
		if !strings.Contains(ask, "verbatim") || strings.Contains(ask, `"de"`) != (lang != "") {
			t.Errorf("request %d instruction = %q, want a verbatim transcript (language %q)", i, ask, lang)
		}
		if diff := cmp.Diff(r.Audio(), []llm.Blob{{MIME: "audio/ogg", Data: audio}}); diff != "" {
			t.Errorf("request %d audio (-got +want):\n%s", i, diff)
		}
		var body struct {
			GenerationConfig struct{ Temperature *float64 }
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || body.GenerationConfig.Temperature == nil || *body.GenerationConfig.Temperature != 0 {
			t.Errorf("request %d generationConfig.temperature is not 0: %s", i, r.Body)
		}
	}
}

// TestTranscribeBlocked: an answer Gemini blocked is a final *llm.Error; one without a
// finish reason a retryable one.
func TestTranscribeBlocked(t *testing.T) {
	srv := llmtest.NewGemini(t)
	srv.Push(
		llmtest.Reply{Raw: `{"candidates":[{"finishReason":"PROHIBITED_CONTENT","index":0}],"modelVersion":"gemini-2.5-flash"}`},
		llmtest.Reply{Raw: `{"candidates":[]}`},
	)
	tr := newTranscriber(t, srv)
	voice := llm.Blob{MIME: "audio/ogg", Data: []byte("OggS")}
	var e *llm.Error
	_, err := tr.Transcribe(t.Context(), voice, "")
	if !errors.As(err, &e) || e.Retryable() || !strings.Contains(e.Message, "PROHIBITED_CONTENT") {
		t.Errorf("blocked: err = %v, want a final *llm.Error naming the reason", err)
	}
	_, err = tr.Transcribe(t.Context(), voice, "")
	if !errors.As(err, &e) || !e.Retryable() || !errors.Is(err, llm.ErrMalformed) {
		t.Errorf("no finish reason: err = %v, want a retryable llm.ErrMalformed", err)
	}
}

func TestNewTranscriber(t *testing.T) {
	if _, err := gemini.NewTranscriber(gemini.Config{APIKey: testKey}, ""); err == nil {
		t.Error("no model: want an error")
	}
	if _, err := gemini.NewTranscriber(gemini.Config{}, "gemini-2.5-flash"); err == nil {
		t.Error("no key: want an error")
	}
}
