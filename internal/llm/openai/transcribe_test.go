package openai_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/llm/openai"
)

func newTranscriber(t *testing.T, srv *llmtest.Server) *openai.Transcriber {
	t.Helper()
	tr, err := openai.NewTranscriber(openai.Config{APIKey: testKey, BaseURL: srv.URL()}, "gpt-4o-mini-transcribe")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestTranscribeUpload: the audio is uploaded under a name whose extension tells the
// API its format, with its type and the language hint; with nothing scripted the fake
// answers its own transcript of those bytes.
func TestTranscribeUpload(t *testing.T) {
	for _, tt := range []struct {
		mime, lang       string
		filename, sentAs string
	}{
		{"audio/ogg", "de", "voice.ogg", "audio/ogg"}, // a Telegram voice note
		{"audio/OGG; codecs=opus", "", "voice.ogg", "audio/ogg"},
		{"audio/mpeg", "en", "voice.mp3", "audio/mpeg"},
		{"audio/x-m4a", "", "voice.m4a", "audio/x-m4a"},
		{"audio/x-wav", "", "voice.wav", "audio/x-wav"},
		{"", "", "voice.ogg", "application/octet-stream"}, // Telegram may omit a voice note's type
	} {
		t.Run(tt.mime, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t)
			audio := llmtest.Media(tt.mime, 5000)
			got, err := newTranscriber(t, srv).Transcribe(t.Context(), llm.Blob{MIME: tt.mime, Data: audio}, tt.lang)
			if err != nil {
				t.Fatal(err)
			}
			if want := llmtest.Transcript(audio); got != want {
				t.Errorf("transcript = %q, want %q", got, want)
			}
			want := []llmtest.TranscribeRequest{{Model: "gpt-4o-mini-transcribe", Language: tt.lang, Filename: tt.filename,
				MIME: tt.sentAs, Audio: audio, HasAPIKey: true}}
			if diff := cmp.Diff(srv.TranscribeRequests(), want); diff != "" {
				t.Errorf("upload (-got +want):\n%s", diff)
			}
		})
	}
}

func TestTranscribeScripted(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	tr := newTranscriber(t, srv)
	a, b := llmtest.Media("audio/ogg", 100), llmtest.Media("audio/ogg", 200)
	srv.SetTranscript(a, "buy milk")
	for _, tt := range []struct {
		audio []byte
		want  string
	}{{a, "buy milk"}, {b, llmtest.Transcript(b)}} {
		got, err := tr.Transcribe(t.Context(), llm.Blob{MIME: "audio/ogg", Data: tt.audio}, "")
		if err != nil || got != tt.want {
			t.Errorf("Transcribe(%d bytes) = %q, %v; want %q", len(tt.audio), got, err, tt.want)
		}
	}
}

// TestTranscribeRejected: a format the API does not know and an answer that is no
// transcript are *llm.Error, the first final, the second retryable.
func TestTranscribeRejected(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	tr := newTranscriber(t, srv)
	_, err := tr.Transcribe(t.Context(), llm.Blob{MIME: "audio/amr", Data: []byte("#!AMR\n")}, "")
	var e *llm.Error
	if !errors.As(err, &e) || e.Status != 400 || e.Retryable() {
		t.Errorf("unknown format: err = %v, want a final *llm.Error with status 400", err)
	}
	if got := srv.TranscribeRequests()[0].Filename; got != "voice.amr" {
		t.Errorf("filename = %q, want voice.amr", got)
	}
	srv.PushTranscripts(llmtest.Reply{Raw: `{"error_page": true}`}, llmtest.Reply{Raw: "<html>bad gateway</html>", RawType: "text/html"})
	for range 2 {
		_, err = tr.Transcribe(t.Context(), llm.Blob{MIME: "audio/ogg", Data: []byte("OggS")}, "")
		if !errors.As(err, &e) || !e.Retryable() {
			t.Errorf("broken answer: err = %v, want a retryable *llm.Error", err)
		}
	}
}

func TestNewTranscriber(t *testing.T) {
	if _, err := openai.NewTranscriber(openai.Config{APIKey: testKey}, ""); err == nil {
		t.Error("no model: want an error")
	}
	if _, err := openai.NewTranscriber(openai.Config{}, "whisper-1"); err == nil {
		t.Error("no key: want an error")
	}
}
