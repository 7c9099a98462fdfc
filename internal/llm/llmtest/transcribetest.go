package llmtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
)

// Heard is the audio of one transcription call as a fake received it.
type Heard struct {
	Model string
	Audio llm.Blob // the bare media type the adapter sent, and the bytes
}

// TranscriberCase is one adapter's llm.Transcriber, tested by TestTranscriber against
// its fake server: the adapters are tested alike without importing each other.
type TranscriberCase struct {
	Provider string           // the adapter's llm.Error.Provider
	Server   func(TB) *Server // starts the provider's fake
	// New builds the transcriber for apiKey and baseURL, with hc as its HTTP client (nil:
	// the adapter's default), using Model.
	New   func(apiKey, baseURL string, hc *http.Client) (llm.Transcriber, error)
	Model string
	Key   string // the API key TestTranscriber configures, which no error may show
	// Push queues the fake's answers to transcription calls: a Reply's Text is the
	// transcript, Status (with RetryAfter and Message) an error, Delay a wait.
	Push func(s *Server, r ...Reply)
	// Heard returns the transcription calls the fake received, oldest first.
	Heard func(s *Server) []Heard
}

// TestTranscriber checks that c's adapter sends the audio whole with its type and
// returns the transcript trimmed; reports provider errors as classified *llm.Error
// values without the key; is retried by llm.WithTranscribeRetry and bounded by
// llm.WithTranscribeDeadlines; and refuses empty audio without a call.
func TestTranscriber(t *testing.T, c TranscriberCase) {
	voice := llm.Blob{MIME: "audio/ogg; codecs=opus", Data: Media("audio/ogg", 2000)}
	start := func(t *testing.T, hc *http.Client) (*Server, llm.Transcriber) {
		t.Helper()
		srv := c.Server(t)
		tr, err := c.New(c.Key, srv.URL(), hc)
		if err != nil {
			t.Fatal(err)
		}
		return srv, tr
	}
	t.Run("RoundTrip", func(t *testing.T) {
		srv, tr := start(t, nil)
		c.Push(srv, Reply{Text: " Meet me at the station at five. \n"})
		got, err := tr.Transcribe(t.Context(), voice, "en")
		if err != nil {
			t.Fatal(err)
		}
		if got != "Meet me at the station at five." {
			t.Errorf("transcript = %q", got)
		}
		want := []Heard{{Model: c.Model, Audio: llm.Blob{MIME: "audio/ogg", Data: voice.Data}}}
		if diff := cmp.Diff(c.Heard(srv), want); diff != "" {
			t.Errorf("calls (-got +want):\n%s", diff)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		srv, tr := start(t, nil)
		c.Push(srv, Reply{Status: 429, RetryAfter: "7", Message: "Rate limit reached"},
			Reply{Status: 400, Message: "bad key " + c.Key})
		ignoreErr := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())
		for _, want := range []*llm.Error{
			{Provider: c.Provider, Status: 429, RetryAfter: 7 * time.Second, Message: "Rate limit reached"},
			{Provider: c.Provider, Status: 400, Message: "bad key REDACTED"},
		} {
			_, err := tr.Transcribe(t.Context(), voice, "")
			var got *llm.Error
			if !errors.As(err, &got) {
				t.Fatalf("err = %v, want *llm.Error", err)
			}
			if diff := cmp.Diff(got, want, ignoreErr); diff != "" {
				t.Errorf("error (-got +want):\n%s", diff)
			}
			if got.Retryable() != (want.Status == 429) {
				t.Errorf("Retryable() = %v for %d", got.Retryable(), want.Status)
			}
			if strings.Contains(err.Error(), c.Key) {
				t.Errorf("error text leaks the key: %v", err)
			}
		}
	})
	t.Run("Retry", func(t *testing.T) {
		srv, tr := start(t, nil)
		c.Push(srv, Reply{Status: 503}, Reply{Text: "hello"})
		waits := 0
		r := llm.WithTranscribeRetry(tr, llm.RetryPolicy{Sleep: func(context.Context, time.Duration) error { waits++; return nil }})
		got, err := r.Transcribe(t.Context(), voice, "")
		if err != nil || got != "hello" || waits != 1 {
			t.Errorf("got %q, %d waits, err %v; want hello after 1 wait", got, waits, err)
		}
		if n := len(c.Heard(srv)); n != 2 {
			t.Errorf("%d calls, want 2", n)
		}
	})
	t.Run("Deadline", func(t *testing.T) {
		srv, tr := start(t, &http.Client{Transport: llm.NewTransport(nil, 0)})
		c.Push(srv, Reply{Text: "late", Delay: time.Hour})
		d := llm.WithTranscribeDeadlines(tr, llm.Deadlines{FirstToken: 50 * time.Millisecond, Total: -1})
		_, err := d.Transcribe(t.Context(), voice, "")
		var le *llm.Error
		if !errors.As(err, &le) || !le.Retryable() || !errors.Is(err, llm.ErrTimeout) {
			t.Errorf("err = %v; want a retryable *llm.Error wrapping llm.ErrTimeout", err)
		}
	})
	t.Run("NoAudio", func(t *testing.T) {
		srv, tr := start(t, nil)
		if _, err := tr.Transcribe(t.Context(), llm.Blob{MIME: "audio/ogg"}, ""); err == nil {
			t.Error("empty audio: want an error")
		}
		if n := len(c.Heard(srv)); n != 0 {
			t.Errorf("%d calls for empty audio, want none", n)
		}
	})
}
